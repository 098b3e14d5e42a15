// Running cmcdap's commands: the listings (`cmcdap traces -json`, `cmcdap bookmarks -json`) for
// the CMC views when no debug session is there to ask, `cmcdap models`, `cmcdap minimize` and
// `cmcdap export-test`.

import { execFile } from 'node:child_process';
import { withoutPassword } from './config';

/** runText runs a program and returns its standard output; errors carry its stderr. */
export function runText(program: string, args: string[], cwd: string | undefined, timeoutMs = 20000, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20, windowsHide: true, signal }, (err, stdout, stderr) => {
      if (err) {
        let why = signal?.aborted ? 'cancelled' : String(stderr).trim() || err.message;
        for (const a of args) why = why.replaceAll(a, withoutPassword(a)); // err.message repeats the command line
        reject(new Error(`${command(program, args)}: ${why}`));
        return;
      }
      resolve(String(stdout));
    });
  });
}

/** runJson runs a program and parses its standard output as JSON; errors carry its stderr. */
export async function runJson(program: string, args: string[], cwd: string | undefined, timeoutMs = 20000): Promise<unknown> {
  const out = (await runText(program, args, cwd, timeoutMs)).trim();
  if (out === '') return [];
  try {
    return JSON.parse(out);
  } catch (e) {
    throw new Error(`${command(program, args)}: output is not JSON: ${(e as Error).message}`);
  }
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

/** The command line as an error shows it: no database password. */
function command(program: string, args: string[]): string {
  return [baseName(program), ...args.map(withoutPassword)].join(' ');
}
