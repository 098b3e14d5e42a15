// Launch configurations of debug type cmc: the defaults that make F5 work without a launch.json
// (the active file's package, the workspace's trace database, paths taken from the folder). The
// attributes themselves are checked in one place, cmcdap's launch parser
// (internal/dap/launchconfig.go): a mistyped one fails the launch with its message, which VS Code
// shows; package.json's schema, generated from the same table, underlines it in launch.json
// first. No vscode import here, so the rules are unit tested with node --test.

import { LaunchAttrs } from './launchAttrs.gen';

/**
 * A launch configuration: the attributes cmcdap reads (generated from its table in
 * internal/dap/launchconfig.go, as package.json's schema is) and what VS Code adds.
 */
export interface LaunchConfig extends LaunchAttrs {
  type?: string;
  request?: string;
  name?: string;
  [key: string]: unknown;
}

/** What the editor knows when a launch is resolved. */
export interface LaunchContext {
  /** Absolute path of the active editor's file, if any. */
  activeFile?: string;
  /** Absolute path of the workspace folder the launch belongs to, if any. */
  folder?: string;
  /** The trace database to use when the configuration names none (see defaultDb). */
  db?: string;
}

/** The directory of a Go file, or undefined for any other file. */
export function goPackageDir(file: string | undefined): string | undefined {
  if (!file || !file.endsWith('.go')) return undefined;
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i > 0 ? file.slice(0, i) : undefined;
}

/** The configuration offered as "Check this package": the package of the active Go file. */
export function checkThisPackage(ctx: LaunchContext): LaunchConfig {
  return {
    type: 'cmc',
    request: 'launch',
    name: 'Check this package',
    program: goPackageDir(ctx.activeFile) ?? ctx.folder ?? '${workspaceFolder}',
    search: 'bfs',
  };
}

export type Resolved = { config: LaunchConfig } | { error: string };

/**
 * resolveLaunch fills in what a launch needs. An empty configuration (F5 with no launch.json)
 * becomes "Check this package"; a configuration without a program checks the active Go file's
 * package, unless it opens a stored trace. The attributes' values are cmcdap's to check.
 */
export function resolveLaunch(input: LaunchConfig, ctx: LaunchContext): Resolved {
  if (!input.type && !input.request && !input.name) {
    input = checkThisPackage(ctx);
  }
  const config: LaunchConfig = { ...input, type: input.type ?? 'cmc', request: input.request ?? 'launch' };
  config.name ??= 'Check this package';
  if (config.request !== 'launch') {
    return { error: `cmc: request "${config.request}" is not supported: use "launch"` };
  }
  if (config.program === undefined && config.trace === undefined) {
    config.program = goPackageDir(ctx.activeFile) ?? ctx.folder;
    if (config.program === undefined) {
      return { error: 'cmc: no package to check: open a Go file of the package, or set "program" in launch.json' };
    }
  }
  if (config.model === '') delete config.model;
  if (config.db === undefined && ctx.db) config.db = ctx.db;
  if (ctx.folder) {
    for (const k of ['program', 'db', 'cwd'] as const) {
      const v = config[k];
      if (typeof v === 'string' && v !== '' && !isAbsolute(v) && !v.startsWith('${') && !isDatabaseURL(v)) {
        config[k] = joinPath(ctx.folder, v);
      }
    }
  }
  return { config };
}

/**
 * chooseModel fills in "model" for a launch that checks a package and names none (F5 with no
 * launch.json): the package's only model, or the one pick returns when it registers several
 * (examples/aodv has AODV and AODVSpecBug). It resolves to undefined when the user cancels the
 * pick. When list fails (the package does not build, say) the launch goes on without a model and
 * cmcdap says what is wrong.
 */
export async function chooseModel(
  config: LaunchConfig,
  list: (program: string) => Promise<string[]>,
  pick: (models: string[]) => Promise<string | undefined>,
): Promise<LaunchConfig | undefined> {
  if (config.model !== undefined || config.trace !== undefined || config.bookmark !== undefined || typeof config.program !== 'string') {
    return config;
  }
  const models = await list(config.program).catch(() => [] as string[]);
  if (models.length === 1) return { ...config, model: models[0] };
  if (models.length < 2) return config;
  const model = await pick(models);
  return model === undefined ? undefined : { ...config, model };
}

/** Whether a Go source file registers models: it calls cmc.Register (a test file does not count). */
export function registersModels(file: string, source: string): boolean {
  return file.endsWith('.go') && !file.endsWith('_test.go') && /\bcmc\.Register\s*\(/.test(source);
}

/** A package of the workspace and the models `cmcdap models` says it registers. */
export interface PackageModels {
  /** Absolute directory. */
  dir: string;
  models: string[];
}

/**
 * modelConfigurations is what launch.json starts with: one configuration per model found in the
 * workspace, named after the model (and its directory, when two packages register models of the
 * same name), checking it in its package. A package without models gets none.
 */
export function modelConfigurations(found: readonly PackageModels[], folder?: string): LaunchConfig[] {
  const root = folder?.replace(/[\\/]+$/, '');
  const rel = (dir: string) => {
    if (root === undefined || !(dir === root || dir.startsWith(root + '/') || dir.startsWith(root + '\\'))) return { program: dir, where: dir };
    const r = dir.slice(root.length + 1).replace(/\\/g, '/');
    return { program: r ? `\${workspaceFolder}/${r}` : '${workspaceFolder}', where: r || '.' };
  };
  const all = [...found].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)).flatMap((p) => p.models.map((model) => ({ model, ...rel(p.dir) })));
  const count = new Map<string, number>();
  for (const c of all) count.set(c.model, (count.get(c.model) ?? 0) + 1);
  return all.map((c) => ({
    type: 'cmc',
    request: 'launch',
    name: count.get(c.model)! > 1 ? `${c.model} (${c.where})` : c.model,
    program: c.program,
    model: c.model,
    search: 'bfs',
  }));
}

/** modelNames checks the output of `cmcdap models -json`: an array of names. */
export function modelNames(out: unknown): string[] {
  if (!Array.isArray(out) || !out.every((m) => typeof m === 'string')) {
    throw new Error(`cmcdap models -json: want a list of model names, got ${JSON.stringify(out).slice(0, 80)}`);
  }
  return out;
}

/**
 * A launch that opens a stored trace. program is optional: with it, cmcdap can re-run the trace
 * for heap graphs.
 */
export function openTraceConfig(id: number, db?: string, program?: string): LaunchConfig {
  const c: LaunchConfig = { type: 'cmc', request: 'launch', name: `Trace #${id}`, trace: id };
  if (program) c.program = program;
  if (db) c.db = db;
  return c;
}

/** A launch that re-checks from a bookmark; program is the package the bookmark's check built. */
export function recheckConfig(bookmark: string, program: string | undefined, db?: string): LaunchConfig {
  const c: LaunchConfig = { type: 'cmc', request: 'launch', name: `Re-check from ${bookmark}`, bookmark };
  if (program) c.program = program;
  if (db) c.db = db;
  return c;
}

export function isAbsolute(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(p);
}

export function joinPath(dir: string, rel: string): string {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
  const parts = (dir.replace(/[\\/]+$/, '') + sep + rel).split(/[\\/]/);
  const out: string[] = [];
  for (const p of parts) {
    if (p === '.') continue;
    if (p === '..' && out.length > 1) out.pop();
    else out.push(p);
  }
  return out.join(sep);
}

/** A PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`), which cmcdap opens as it is. */
export function isDatabaseURL(db: string): boolean {
  return db.startsWith('postgres://') || db.startsWith('postgresql://');
}

/** withoutPassword is s as it may be shown: a database URL loses its password, as cmcdap shows it. */
export function withoutPassword(s: string): string {
  if (!isDatabaseURL(s)) return s;
  try {
    const u = new URL(s);
    u.password = '';
    u.searchParams.delete('password');
    u.searchParams.delete('sslpassword');
    return u.toString();
  } catch {
    return s.slice(0, s.indexOf('://') + 3) + '(a URL that does not parse)';
  }
}

/** hasDatabase: there is a database to list (a URL is not a file, and is asked as it is). */
export function hasDatabase(db: string | undefined, exists: (file: string) => boolean): db is string {
  return !!db && (isDatabaseURL(db) || exists(db));
}

/**
 * defaultDb is the trace database the editor uses when launch.json names none: the cmc.db
 * setting, else .cmc/traces.db at the root of the Go module holding the folder (where `cmcdap
 * check` run from the module puts it), else in the folder. Launches and the views agree on it.
 */
export function defaultDb(folder: string, setting: string, moduleRoot: (dir: string) => string | undefined): string {
  if (setting.trim() !== '') return isAbsolute(setting) || isDatabaseURL(setting) ? setting : joinPath(folder, setting);
  return joinPath(moduleRoot(folder) ?? folder, '.cmc/traces.db');
}
