// The manifest is the extension's largest piece of configuration: check it says what the code
// and cmcdap expect.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const dbg = pkg.contributes.debuggers[0];

test('debug type cmc with every launch attribute cmcdap reads', () => {
  assert.equal(dbg.type, 'cmc');
  assert.equal(dbg.label, 'CMC model checker');
  const attrs = dbg.configurationAttributes.launch.properties;
  for (const k of ['program', 'model', 'params', 'search', 'maxDepth', 'maxStates', 'steps', 'seed', 'deadline', 'db', 'cwd', 'stopOnEntry', 'trace', 'bookmark', 'goal']) {
    assert.ok(attrs[k], k);
    assert.ok(attrs[k].type && attrs[k].description, `${k} has a type and a description`);
  }
  assert.deepEqual(attrs.search.enum, ['bfs', 'dfs', 'random', 'best', 'deepen', 'swarm']);
  assert.equal(attrs.search.default, 'bfs');
});

test('snippets and initial configurations', () => {
  assert.deepEqual(dbg.configurationSnippets.map((s: { label: string }) => s.label), ['CMC: Check AODV', 'CMC: Open stored trace', 'CMC: Re-check from bookmark']);
  for (const s of dbg.configurationSnippets) assert.equal(s.body.type, 'cmc');
  // VS Code adds static initial configurations to the provider's; "${fileDirname}" or a folder
  // may hold no model, so launch.json's first configurations all come from the provider
  // (modelConfigurations: one per model found).
  assert.equal(dbg.initialConfigurations, undefined);
});

test('every command in a menu is declared, and every declared command is implemented', () => {
  const declared = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const [menu, items] of Object.entries(pkg.contributes.menus) as Array<[string, Array<{ command: string }>]>) {
    for (const i of items) assert.ok(declared.has(i.command), `${menu}: ${i.command}`);
  }
  const src = fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'commands.ts'), 'utf8');
  for (const c of declared) assert.match(src, new RegExp(`reg\\('${String(c).replace('.', '\\.')}'`), `${c} is registered`);
});

test('packaging needs: exact pins, @types/vscode within engines, repository', () => {
  for (const [name, v] of Object.entries(pkg.devDependencies)) assert.match(String(v), /^\d+\.\d+\.\d+$/, `${name} is pinned`);
  assert.match(pkg.devDependencies.typescript, /^5\.9\./);
  assert.equal(pkg.devDependencies['@vscode/vsce'], '3.9.2');
  const engine = pkg.engines.vscode.replace(/^\^/, '').split('.').map(Number);
  const types = pkg.devDependencies['@types/vscode'].split('.').map(Number);
  assert.ok(types[0] < engine[0] || (types[0] === engine[0] && types[1] <= engine[1]), '@types/vscode is not newer than engines.vscode');
  assert.ok(pkg.repository?.url);
  assert.ok(fs.existsSync(path.join(__dirname, '..', '..', 'LICENSE')));
});

test('the launch schema comes from cmcdap\'s table', () => {
  const attrs = dbg.configurationAttributes.launch.properties;
  assert.equal(attrs.selfCheck.minimum, -1);
  assert.equal(attrs.selfCheck.default, 2000);
});

test('without a session, commands that need one are disabled and bookmark edits stay available', () => {
  const byId = new Map(pkg.contributes.commands.map((c: { command: string }) => [c.command, c]));
  for (const id of ['cmc.addBookmark', 'cmc.bookmarkFrame', 'cmc.gotoStep', 'cmc.gotoFrameStep', 'cmc.showChoices']) {
    assert.match(String((byId.get(id) as { enablement?: string }).enablement), /debugType == cmc && debugState == stopped/, id);
  }
  // These work on the trace database (cmcdap bookmarks -rename/-delete, a launch) with no session.
  for (const id of ['cmc.renameBookmark', 'cmc.removeBookmark', 'cmc.recheckFromBookmark']) {
    assert.equal((byId.get(id) as { enablement?: string }).enablement, undefined, id);
  }
  const welcome = pkg.contributes.viewsWelcome.filter((w: { view: string }) => w.view === 'cmc.bookmarks');
  for (const w of welcome) {
    if (/command:cmc\.addBookmark/.test(w.contents)) assert.equal(w.when, 'debugType == cmc');
  }
});
