import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { runJson, runText } from '../src/cli';

function script(body: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cmc-cli-'));
  const p = path.join(dir, 'cmcdap');
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

test('runJson parses the output and passes the arguments', async () => {
  const p = script(`printf '[{"id":1,"model":"%s","length":2}]' "$2"`);
  assert.deepEqual(await runJson(p, ['traces', 'M', '-db', 'x'], undefined), [{ id: 1, model: 'M', length: 2 }]);
});

test('no output is an empty list', async () => {
  assert.deepEqual(await runJson(script('true'), [], undefined), []);
});

test('a failure carries stderr', async () => {
  await assert.rejects(runJson(script('echo "cmcdap: unknown command \\"traces\\"" >&2; exit 2'), ['traces', '-json'], undefined), /cmcdap traces -json: cmcdap: unknown command "traces"/);
});

test('a failure does not show a database password', async () => {
  const db = 'postgres://cmc:s3cret@127.0.0.1:1/cmc';
  await assert.rejects(runJson(script('exit 2'), ['traces', '-json', '-db', db], undefined), (e: Error) =>
    e.message.startsWith('cmcdap traces -json -db postgres://cmc@127.0.0.1:1/cmc: ') && !e.message.includes('s3cret'));
});

test('output that is not JSON is an error', async () => {
  await assert.rejects(runJson(script('echo hello'), ['traces'], undefined), /output is not JSON/);
});

test('runText returns the output as it is; a cancelled run says so', async () => {
  assert.equal(await runText(script('echo "stored trace 9: 16 steps"'), ['minimize', '7'], undefined), 'stored trace 9: 16 steps\n');
  const abort = new AbortController();
  const slow = runText(script('sleep 5'), ['minimize', '7'], undefined, 20000, abort.signal);
  abort.abort();
  await assert.rejects(slow, /cmcdap minimize 7: cancelled/);
});
