import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterSearch, bundleDir, findCmcdap, installHint } from '../src/adapterPath';

function search(files: string[], over: Partial<AdapterSearch> = {}): AdapterSearch {
  const set = new Set(files);
  return { setting: '', extensionPath: '/ext', platform: 'linux', arch: 'x64', env: { PATH: '/usr/local/bin:/usr/bin' }, home: '/home/u', folder: '/w', isExecutable: (p) => set.has(p), ...over };
}

test('the setting comes first', () => {
  const r = findCmcdap(search(['/opt/cmcdap', '/ext/bin/linux-x64/cmcdap', '/usr/bin/cmcdap'], { setting: '/opt/cmcdap' }));
  assert.deepEqual(r, { path: '/opt/cmcdap', source: 'setting' });
});

test('a setting that points nowhere is an error, not a silent fallback', () => {
  const r = findCmcdap(search(['/ext/bin/linux-x64/cmcdap'], { setting: '/opt/cmcdap' }));
  assert.ok('error' in r && /cmc.cmcdapPath is "\/opt\/cmcdap"/.test(r.error));
});

test('a relative setting is taken from the workspace folder, ~ from home, a bare name from PATH', () => {
  assert.deepEqual(findCmcdap(search(['/w/bin/cmcdap'], { setting: './bin/cmcdap' })), { path: '/w/bin/cmcdap', source: 'setting' });
  assert.deepEqual(findCmcdap(search(['/home/u/go/bin/cmcdap'], { setting: '~/go/bin/cmcdap' })), { path: '/home/u/go/bin/cmcdap', source: 'setting' });
  assert.deepEqual(findCmcdap(search(['/usr/bin/my-cmcdap'], { setting: 'my-cmcdap' })), { path: '/usr/bin/my-cmcdap', source: 'setting' });
});

test('then the bundled binary, then PATH in order, then GOBIN, GOPATH/bin and ~/go/bin', () => {
  assert.deepEqual(findCmcdap(search(['/ext/bin/linux-x64/cmcdap', '/usr/bin/cmcdap'])), { path: '/ext/bin/linux-x64/cmcdap', source: 'bundled' });
  assert.deepEqual(findCmcdap(search(['/usr/bin/cmcdap', '/usr/local/bin/cmcdap'])), { path: '/usr/local/bin/cmcdap', source: 'PATH' });
  assert.deepEqual(findCmcdap(search(['/gb/cmcdap', '/gp/bin/cmcdap'], { env: { PATH: '/usr/bin', GOBIN: '/gb', GOPATH: '/gp' } })), { path: '/gb/cmcdap', source: 'GOPATH' });
  assert.deepEqual(findCmcdap(search(['/home/u/go/bin/cmcdap'])), { path: '/home/u/go/bin/cmcdap', source: 'GOPATH' });
});

test('nothing found says how to install it', () => {
  const r = findCmcdap(search([]));
  assert.deepEqual(r, { error: installHint });
  assert.equal(installHint, 'cmcdap not found: install it with `go install github.com/cmc-go/cmc/cmd/cmcdap@latest` or set cmc.cmcdapPath');
});

test('a bundled binary for another platform is not used', () => {
  const r = findCmcdap(search(['/ext/bin/linux-x64/cmcdap'], { arch: 'arm64' }));
  assert.ok('error' in r);
  assert.equal(bundleDir('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(bundleDir('win32', 'x64'), 'windows-x64');
});

test('windows paths', () => {
  const r = findCmcdap(search(['C:\\go\\bin\\cmcdap.exe'], { platform: 'win32', env: { Path: 'C:\\Windows;C:\\go\\bin' } }));
  assert.deepEqual(r, { path: 'C:\\go\\bin\\cmcdap.exe', source: 'PATH' });
});
