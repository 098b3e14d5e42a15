// Which cmcdap program the extension starts. The order: the cmc.cmcdapPath setting, the binary
// bundled in the extension (bin/<platform>-<arch>/cmcdap), then PATH and the directories `go
// install` writes to. The file system is passed in, so the order is unit tested.

export interface AdapterSearch {
  /** The cmc.cmcdapPath setting ('' when unset). */
  setting: string;
  /** Directory the extension is installed in. */
  extensionPath: string;
  platform: string; // process.platform
  arch: string; // process.arch
  env: Record<string, string | undefined>;
  home?: string;
  /** Workspace folder, for a relative setting. */
  folder?: string;
  isExecutable(path: string): boolean;
}

export type AdapterFound = { path: string; source: 'setting' | 'bundled' | 'PATH' | 'GOPATH' } | { error: string };

export const installHint =
  'cmcdap not found: install it with `go install github.com/cmc-go/cmc/cmd/cmcdap@latest` or set cmc.cmcdapPath';

/** The directory name bundled binaries live under, as `go build` names targets. */
export function bundleDir(platform: string, arch: string): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'x64' ? 'x64' : arch;
  return `${os}-${cpu}`;
}

export function findCmcdap(s: AdapterSearch): AdapterFound {
  const win = s.platform === 'win32';
  const sep = win ? '\\' : '/';
  const exe = win ? 'cmcdap.exe' : 'cmcdap';
  const join = (...p: string[]) => p.map((x, i) => (i === 0 ? x.replace(/[\\/]+$/, '') : x.replace(/^[\\/]+|[\\/]+$/g, ''))).join(sep);

  const setting = s.setting.trim();
  if (setting !== '') {
    let p = setting;
    if (p === '~' || p.startsWith('~/')) p = (s.home ?? '') + p.slice(1);
    const absolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
    if (!absolute && (p.includes('/') || p.includes('\\')) && s.folder) p = join(s.folder, p.replace(/^\.[\\/]/, ''));
    if (!absolute && !p.includes('/') && !p.includes('\\')) {
      // a bare name: look it up on PATH, as a shell would
      const found = searchPath(s, p, join);
      if (found) return { path: found, source: 'setting' };
      return { error: `cmc.cmcdapPath is "${setting}", which is not on PATH: give the full path of cmcdap, or clear the setting` };
    }
    if (s.isExecutable(p)) return { path: p, source: 'setting' };
    return { error: `cmc.cmcdapPath is "${setting}", but ${p} is not an executable file: fix the setting, or clear it to use the bundled cmcdap` };
  }

  const bundled = join(s.extensionPath, 'bin', bundleDir(s.platform, s.arch), exe);
  if (s.isExecutable(bundled)) return { path: bundled, source: 'bundled' };

  const onPath = searchPath(s, exe, join);
  if (onPath) return { path: onPath, source: 'PATH' };

  // `go install` puts cmcdap in GOBIN or GOPATH/bin, which is often not on an editor's PATH.
  const dirs: string[] = [];
  if (s.env.GOBIN) dirs.push(s.env.GOBIN);
  for (const gp of (s.env.GOPATH ?? '').split(win ? ';' : ':')) if (gp) dirs.push(join(gp, 'bin'));
  if (s.home) dirs.push(join(s.home, 'go', 'bin'));
  for (const d of dirs) {
    const p = join(d, exe);
    if (s.isExecutable(p)) return { path: p, source: 'GOPATH' };
  }
  return { error: installHint };
}

function searchPath(s: AdapterSearch, name: string, join: (...p: string[]) => string): string | undefined {
  const path = s.env.PATH ?? s.env.Path ?? '';
  for (const dir of path.split(s.platform === 'win32' ? ';' : ':')) {
    if (!dir) continue;
    const p = join(dir, name);
    if (s.isExecutable(p)) return p;
  }
  return undefined;
}
