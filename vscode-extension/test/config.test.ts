import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkThisPackage, chooseModel, defaultDb, goPackageDir, hasDatabase, joinPath, withoutPassword, modelConfigurations, modelNames, openTraceConfig, recheckConfig, registersModels, resolveLaunch } from '../src/config';

const ctx = { activeFile: '/w/examples/aodv/router.go', folder: '/w', db: '/w/.cmc/traces.db' };

test('F5 with no launch.json checks the active Go file\'s package', () => {
  const r = resolveLaunch({}, ctx);
  assert.ok('config' in r);
  assert.deepEqual(r.config, { type: 'cmc', request: 'launch', name: 'Check this package', program: '/w/examples/aodv', search: 'bfs', db: '/w/.cmc/traces.db' });
});

test('with no Go file open, the package is the workspace folder', () => {
  assert.equal(checkThisPackage({ activeFile: '/w/README.md', folder: '/w' }).program, '/w');
  assert.equal(checkThisPackage({}).program, '${workspaceFolder}');
  assert.equal(goPackageDir('/a/b/c.go'), '/a/b');
  assert.equal(goPackageDir('c.txt'), undefined);
});

test('a configuration without program gets one, unless it opens a trace', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', model: 'M' }, ctx);
  assert.ok('config' in r && r.config.program === '/w/examples/aodv');
  const t = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', trace: 3 }, ctx);
  assert.ok('config' in t && t.config.program === undefined && t.config.trace === 3);
});

test('nothing to check is an error that says what to do', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x' }, {});
  assert.ok('error' in r && /open a Go file/.test(r.error));
});

test('relative paths are taken from the workspace folder; variables are left to VS Code', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', program: './examples/../examples/aodv', db: 'tmp/t.db' }, { folder: '/w' });
  assert.ok('config' in r);
  assert.equal(r.config.program, '/w/examples/aodv');
  assert.equal(r.config.db, '/w/tmp/t.db');
  const v = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', program: '${workspaceFolder}/a' }, { folder: '/w' });
  assert.ok('config' in v && v.config.program === '${workspaceFolder}/a');
  assert.equal(joinPath('C:\\w', 'a\\b'), 'C:\\w\\a\\b');
});

test('the configuration\'s own db wins over the default', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', program: '/p', db: '/d.db' }, ctx);
  assert.ok('config' in r && r.config.db === '/d.db');
});

test('a launch other than launch is refused', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'attach', name: 'x', program: '/p' }, ctx);
  assert.ok('error' in r && /use "launch"/.test(r.error));
});

test('good attributes pass unchanged', () => {
  const c = { type: 'cmc', request: 'launch', name: 'x', program: '/p', model: 'AODVSpecBug', params: { nodes: 3, loss: true, mode: 'x' }, search: 'random' as const, maxDepth: 0, maxStates: 1000, steps: 50, seed: 7, deadline: 2.5, stopOnEntry: true, db: '/d.db' };
  const r = resolveLaunch({ ...c }, ctx);
  assert.ok('config' in r);
  assert.deepEqual(r.config, c);
});

test('trace and bookmark launches', () => {
  assert.deepEqual(openTraceConfig(4, '/d.db'), { type: 'cmc', request: 'launch', name: 'Trace #4', trace: 4, db: '/d.db' });
  assert.deepEqual(openTraceConfig(4, undefined, '/w/p'), { type: 'cmc', request: 'launch', name: 'Trace #4', trace: 4, program: '/w/p' });
  assert.deepEqual(recheckConfig('loop', '/w/examples/aodv'), { type: 'cmc', request: 'launch', name: 'Re-check from loop', bookmark: 'loop', program: '/w/examples/aodv' });
});

test('the default database is at the module root', () => {
  assert.equal(defaultDb('/w/sub', '', () => '/w'), '/w/.cmc/traces.db');
  assert.equal(defaultDb('/w', '', () => undefined), '/w/.cmc/traces.db');
  assert.equal(defaultDb('/w', 'x/t.db', () => '/m'), '/w/x/t.db');
  assert.equal(defaultDb('/w', '/abs/t.db', () => '/m'), '/abs/t.db');
  assert.equal(defaultDb('/w', 'postgres://cmc@db:5432/cmc', () => '/m'), 'postgres://cmc@db:5432/cmc');
});

test('a PostgreSQL URL is shown without its password, and is a database to list though no file', () => {
  assert.equal(withoutPassword('postgres://cmc:s3cret@db:5432/cmc?sslmode=require'), 'postgres://cmc@db:5432/cmc?sslmode=require');
  assert.equal(withoutPassword('/w/.cmc/traces.db'), '/w/.cmc/traces.db');
  assert.equal(hasDatabase('postgres://cmc@db/cmc', () => false), true);
  assert.equal(hasDatabase('/w/none.db', () => false), false);
  assert.equal(hasDatabase(undefined, () => true), false);
});

test('a PostgreSQL URL is the database as given, not a path in the folder', () => {
  const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', program: '/p', db: 'postgresql://cmc@127.0.0.1/cmc' }, { folder: '/w' });
  assert.ok('config' in r && r.config.db === 'postgresql://cmc@127.0.0.1/cmc');
});

test('a launch without a model: the only one, a pick among several, or cmcdap says why', async () => {
  const base = { type: 'cmc', request: 'launch', name: 'Check this package', program: '/w/examples/aodv' };
  const listed: string[] = [];
  const list = (models: string[] | Error) => async (program: string) => {
    listed.push(program);
    if (models instanceof Error) throw models;
    return models;
  };
  const never = async () => assert.fail('no pick for one model');
  assert.deepEqual(await chooseModel({ ...base }, list(['TwoPhase']), never), { ...base, model: 'TwoPhase' });
  assert.deepEqual(listed, ['/w/examples/aodv']);
  let offered: string[] = [];
  const picked = await chooseModel({ ...base }, list(['AODV', 'AODVSpecBug']), async (ms) => {
    offered = ms;
    return 'AODVSpecBug';
  });
  assert.deepEqual(offered, ['AODV', 'AODVSpecBug']);
  assert.equal(picked?.model, 'AODVSpecBug');
  assert.equal(await chooseModel({ ...base }, list(['AODV', 'AODVSpecBug']), async () => undefined), undefined, 'a cancelled pick cancels the launch');
  assert.deepEqual(await chooseModel({ ...base }, list(new Error('does not build')), never), base, 'a failed listing leaves the error to cmcdap');
  assert.deepEqual(await chooseModel({ ...base }, list([]), never), base);
  // Nothing to choose: a model given, a stored trace, a bookmark (it knows its model).
  listed.length = 0;
  for (const c of [{ ...base, model: 'AODV' }, { type: 'cmc', request: 'launch', trace: 3 }, { ...base, bookmark: 'b' }]) {
    assert.deepEqual(await chooseModel(c, list(['x', 'y']), never), c);
  }
  assert.deepEqual(listed, [], 'no listing when there is nothing to choose');
});

test('the models listing must be a list of names', () => {
  assert.deepEqual(modelNames(['AODV', 'AODVSpecBug']), ['AODV', 'AODVSpecBug']);
  assert.deepEqual(modelNames([]), []);
  assert.throws(() => modelNames({ models: [] }), /want a list of model names/);
  assert.throws(() => modelNames([1]), /want a list of model names/);
});

test('attribute values are left to cmcdap, the one place that checks them', () => {
  // After VS Code substitutes ${input:traceId} the value is a string of digits, which cmcdap takes
  // (internal/dap launchconfig.go); a wrong value is cmcdap's to refuse, with its own message.
  const values: Array<Record<string, unknown>> = [{ trace: '7' }, { maxStates: '100' }, { trace: '${input:traceId}' }, { search: 'bfz' }, { maxDepth: -1 }, { trace: 2, bookmark: 'b' }];
  for (const attrs of values) {
    const r = resolveLaunch({ type: 'cmc', request: 'launch', name: 'x', program: '/p', ...attrs }, ctx);
    assert.ok('config' in r, JSON.stringify(attrs));
    for (const [k, v] of Object.entries(attrs)) assert.deepEqual(r.config[k], v, k);
  }
});

test('launch.json starts with one configuration per model in the workspace, named after it', () => {
  const found = [
    { dir: '/w/examples/twophase', models: ['TwoPhase'] },
    { dir: '/w/examples/aodv', models: ['AODV', 'AODVSpecBug'] },
    { dir: '/w/internal/nomodels', models: [] },
    { dir: '/w/test/fixture', models: ['AODV'] },
    { dir: '/w', models: ['Root'] },
  ];
  const configs = modelConfigurations(found, '/w/');
  assert.deepEqual(configs.map((c) => [c.name, c.program, c.model]), [
    ['Root', '${workspaceFolder}', 'Root'],
    ['AODV (examples/aodv)', '${workspaceFolder}/examples/aodv', 'AODV'],
    ['AODVSpecBug', '${workspaceFolder}/examples/aodv', 'AODVSpecBug'],
    ['TwoPhase', '${workspaceFolder}/examples/twophase', 'TwoPhase'],
    ['AODV (test/fixture)', '${workspaceFolder}/test/fixture', 'AODV'],
  ]);
  for (const c of configs) {
    assert.equal(c.type, 'cmc');
    assert.equal(c.request, 'launch');
    const r = resolveLaunch(c, { folder: '/w' });
    assert.ok('config' in r, `${c.name} resolves`);
  }
  assert.deepEqual(modelConfigurations([{ dir: '/w/empty', models: [] }], '/w'), [], 'a folder without models gets no configuration');
  assert.deepEqual(modelConfigurations([], '/w'), []);
});

test('which Go files register models', () => {
  assert.equal(registersModels('/w/aodv/model.go', 'func init() {\n\tcmc.Register("AODV", build)\n}'), true);
  assert.equal(registersModels('/w/aodv/model_test.go', 'cmc.Register("T", build)'), false);
  assert.equal(registersModels('/w/aodv/router.go', 'cmc.Choose(2)'), false);
  assert.equal(registersModels('/w/README.md', 'cmc.Register("AODV", build)'), false);
});
