// cmcdap's debug adapter driven by VS Code's own DAP test client (@vscode/debugadapter-testsupport),
// not by a client we wrote: the user's day as an editor lives it. Check a model, stop on its
// violation, read the stack and the variables, go back to the step where a route entry appeared,
// break when it changes (forward and backward), bookmark that state, and re-check from the
// bookmark, with the bug and "fixed".
//
// Run: cd test/dap && npm ci && node --test
//
// The story runs on the relay test model (internal/dap/testdata/relay), and on AODV
// (examples/aodv, AODVSpecBug: its breadth-first check takes about 25 s) unless CMC_DAP_AODV=0.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';

const repo = path.resolve(import.meta.dirname, '..', '..');
let tmp, bin;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cmcdap-node-'));
  bin = path.join(tmp, 'cmcdap');
  execFileSync('go', ['build', '-o', bin, './cmd/cmcdap'], { cwd: repo, stdio: 'inherit' });
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const stories = [
  {
    name: 'relay',
    program: path.join(repo, 'internal/dap/testdata/relay'),
    model: 'Relay',
    fixed: { hops: 10 }, // a bound no path reaches: "the fix"
    violation: /HopBound: B's route to A has 3 hops/,
    table: 'Routes', // the routing table field of a process
    timeout: 120_000,
  },
];
if (process.env.CMC_DAP_AODV !== '0') {
  stories.push({
    name: 'aodv',
    program: path.join(repo, 'examples/aodv'),
    model: 'AODVSpecBug',
    fixed: null,
    violation: /.*/,
    table: 'routes',
    timeout: 1_800_000,
  });
}

// session starts the adapter as VS Code does: `cmcdap dap`, DAP on stdin/stdout.
async function session(t, timeout) {
  const dc = new DebugClient(bin, 'dap', 'cmc');
  dc.defaultTimeout = timeout;
  await dc.start();
  t.after(() => dc.stop());
  return dc;
}

// launchTo launches and resolves with the first stopped event (or terminated).
async function launchTo(dc, args, event = 'stopped') {
  const ended = dc.waitForEvent(event);
  await Promise.all([dc.configurationSequence(), dc.launch(args)]);
  return ended;
}

async function frames(dc, threadId) {
  return (await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 0 })).body.stackFrames;
}

async function variables(dc, ref) {
  const vs = (await dc.variablesRequest({ variablesReference: ref })).body.variables;
  return Object.fromEntries(vs.map((v) => [v.name, v]));
}

async function scopes(dc, frameId) {
  const ss = (await dc.scopesRequest({ frameId })).body.scopes;
  return Object.fromEntries(ss.map((s) => [s.name, s.variablesReference]));
}

// stopAfter runs a request that stops and returns the stopped event.
async function stopAfter(dc, request) {
  const stopped = dc.waitForEvent('stopped');
  await request();
  return stopped;
}

for (const s of stories) {
  test(`the user's day on ${s.name}`, { timeout: s.timeout * 3 }, async (t) => {
    const db = path.join(tmp, `${s.name}.db`);
    const dc = await session(t, s.timeout);

    // Check, and stop on the violation.
    const stop = await launchTo(dc, { program: s.program, model: s.model, db });
    assert.equal(stop.body.reason, 'exception');
    assert.match(stop.body.text, s.violation);
    const info = await dc.exceptionInfoRequest({ threadId: stop.body.threadId });
    assert.match(`${info.body.exceptionId}: ${info.body.description}`, s.violation);

    // Threads are the processes; the stack is the trace, newest step on top.
    const threads = (await dc.threadsRequest()).body.threads;
    assert.ok(threads.length >= 2, 'one thread per process');
    const stack = await frames(dc, stop.body.threadId);
    const steps = stack.length - 1;
    assert.match(stack[0].name, new RegExp(`^#${steps} `));
    assert.equal(stack.at(-1).name, '#0 initial state');
    assert.ok(stack[0].source && stack[0].line > 0, 'the top frame shows the handler');

    // Find the step where the acting process's first route entry appeared (cmc/diff per step).
    const proc = threads.find((th) => th.id === stop.body.threadId).name;
    let entryPath, appeared;
    for (let n = 1; n <= steps && !appeared; n++) {
      const diff = (await dc.customRequest('cmc/diff', { step: n })).body;
      const c = diff.changes.find((c) => c.kind === 'added' && c.path.startsWith(`${proc}.${s.table}[`));
      if (c) {
        entryPath = c.path.slice(0, c.path.indexOf(']', proc.length + s.table.length + 2) + 1);
        appeared = n;
      }
    }
    assert.ok(appeared, `a step adds an entry to ${proc}.${s.table}`);

    // Step back once, then go to that step.
    let e = await stopAfter(dc, () => dc.stepBackRequest({ threadId: stop.body.threadId }));
    assert.equal(e.body.reason, steps > 1 ? 'step' : 'entry');
    assert.match((await frames(dc, e.body.threadId))[0].name, new RegExp(`^#${steps - 1} `));
    e = await stopAfter(dc, () => dc.customRequest('cmc/gotoStep', { step: appeared }));
    assert.equal(e.body.reason, 'goto');

    // The Variables pane: State > process > table > entry.
    const top = (await frames(dc, e.body.threadId))[0];
    const sc = await scopes(dc, top.id);
    assert.ok(sc.State && sc.Changes && sc.Choices, 'State, Choices and Changes scopes');
    const procVar = (await variables(dc, sc.State))[proc];
    const table = (await variables(dc, procVar.variablesReference))[s.table];
    const entryName = entryPath.slice(`${proc}.${s.table}`.length);
    const entry = (await variables(dc, table.variablesReference))[entryName];
    assert.ok(entry && entry.variablesReference > 0, `${entryPath} is shown`);

    // A data breakpoint on the route entry: forward to its next change, back to its appearance.
    const dbi = await dc.dataBreakpointInfoRequest({ variablesReference: table.variablesReference, name: entryName });
    assert.equal(dbi.body.dataId, entryPath);
    const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: dbi.body.dataId, accessType: 'write' }] });
    assert.equal(set.body.breakpoints[0].verified, true);
    e = await stopAfter(dc, () => dc.continueRequest({ threadId: e.body.threadId }));
    const changedAgain = e.body.reason === 'data breakpoint';
    if (changedAgain) {
      const at = (await frames(dc, e.body.threadId))[0].name;
      const n = Number(at.slice(1, at.indexOf(' ')));
      assert.ok(n > appeared, `the entry changes again at #${n}`);
      e = await stopAfter(dc, () => dc.reverseContinueRequest({ threadId: e.body.threadId }));
    } else {
      e = await stopAfter(dc, () => dc.reverseContinueRequest({ threadId: e.body.threadId }));
    }
    assert.equal(e.body.reason, 'data breakpoint');
    assert.match((await frames(dc, e.body.threadId))[0].name, new RegExp(`^#${appeared} `));
    await dc.setDataBreakpointsRequest({ breakpoints: [] });

    // A watch expression over the state, in the same language as breakpoint conditions.
    const watch = await dc.evaluateRequest({ expression: `len(${proc}.${s.table}) > 0`, context: 'watch' });
    assert.equal(watch.body.result, 'true');

    // Bookmark this state.
    const bm = await dc.customRequest('cmc/addBookmark', { name: `${s.name}-entry`, note: 'the route appears' });
    assert.equal(bm.body.bookmark.step, appeared);

    // Re-check from the bookmark: the same violation, through the bookmarked state.
    const again = await session(t, s.timeout);
    const stop2 = await launchTo(again, { program: s.program, bookmark: `${s.name}-entry`, db });
    assert.equal(stop2.body.reason, 'exception');
    assert.match(stop2.body.text, s.violation);
    assert.ok((await frames(again, stop2.body.threadId)).length > appeared, 'the trace starts with the bookmarked steps');

    // And with the bug "fixed": no violation, the session ends with the summary.
    if (s.fixed) {
      const fixed = await session(t, s.timeout);
      const outputs = [];
      fixed.on('output', (o) => outputs.push(o.body.output));
      await launchTo(fixed, { program: s.program, bookmark: `${s.name}-entry`, db, params: s.fixed }, 'terminated');
      assert.match(outputs.join(''), /no violation/);
    }
  });
}

test('a wrong launch attribute is an error that says what to give', async (t) => {
  const dc = await session(t, 30_000);
  await dc.initializeRequest();
  await assert.rejects(dc.launchRequest({ program: '.', search: 'xyz' }),
    /launch: "search" must be one of bfs, dfs, random, best, deepen, swarm, not "xyz"/);
});
