// Running cmcdap's listing commands (`cmcdap traces -json`, `cmcdap bookmarks -json`) for the
// CMC views when no debug session is there to ask.

import { execFile } from 'node:child_process';

/** runJson runs a program and parses its standard output as JSON; errors carry its stderr. */
export function runJson(program: string, args: string[], cwd: string | undefined, timeoutMs = 20000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20, windowsHide: true }, (err, stdout, stderr) => {
      if (err) {
        const why = String(stderr).trim() || err.message;
        reject(new Error(`${baseName(program)} ${args.join(' ')}: ${why}`));
        return;
      }
      const out = String(stdout).trim();
      if (out === '') {
        resolve([]);
        return;
      }
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(new Error(`${baseName(program)} ${args.join(' ')}: output is not JSON: ${(e as Error).message}`));
      }
    });
  });
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}
