// Bundles the extension (dist/extension.js) with esbuild; with --tests, also each unit test
// (test/*.test.ts -> test/out/*.test.js) for node --test. Unit tests import only the modules
// that do not import vscode.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
process.chdir(root);
const tests = process.argv.includes('--tests');

await esbuild.build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // ws loads these native speed-ups only if they are installed.
  external: ['vscode', 'bufferutil', 'utf-8-validate'],
  sourcemap: 'linked',
  minify: process.argv.includes('--minify'),
  logLevel: 'warning',
});

if (tests) {
  fs.rmSync('test/out', { recursive: true, force: true });
  const entries = fs.readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => path.join('test', f));
  await esbuild.build({
    entryPoints: entries,
    bundle: true,
    outdir: 'test/out',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'bufferutil', 'utf-8-validate'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}
