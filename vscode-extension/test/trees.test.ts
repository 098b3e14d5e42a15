import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ago, bookmarkItem, bookmarksOf, checkBookmarkName, compareChoices, frameSessionOf, hereBookmark, frameStepOf, kindText, shortSite, stepOfFrame, traceItem, tracesOf } from '../src/trees';

const now = new Date('2025-06-01T12:00:00Z');

test('relative times', () => {
  assert.equal(ago('2025-06-01T11:59:50Z', now), 'just now');
  assert.equal(ago('2025-06-01T11:55:00Z', now), '5 min ago');
  assert.equal(ago('2025-06-01T09:00:00Z', now), '3 h ago');
  assert.equal(ago('2025-05-31T12:00:00Z', now), 'yesterday');
  assert.equal(ago('2025-05-28T12:00:00Z', now), '4 days ago');
  assert.equal(ago('2025-01-02T12:00:00Z', now), '2025-01-02');
  assert.equal(ago(undefined, now), '');
  assert.equal(ago('garbage', now), '');
});

test('a trace item shows model, kind, length and when', () => {
  const item = traceItem({ id: 7, model: 'AODVSpecBug', params: { nodes: '3' }, kind: 'invariant', name: 'NoLoop', message: 'routing loop A→B→A', site: 'aodv.go:10', length: 9, found: '2025-06-01T11:50:00Z', seen: 2 }, now);
  assert.equal(item.id, 'trace:7');
  assert.equal(item.label, '#7 AODVSpecBug');
  assert.equal(item.description, 'invariant NoLoop · 9 steps · 10 min ago');
  assert.equal(item.contextValue, 'cmcTrace');
  assert.equal(item.icon, 'bug');
  assert.match(item.tooltip, /^\*\*Trace #7\*\*: AODVSpecBug \(nodes=3\)/);
  assert.match(item.tooltip, /invariant NoLoop: routing loop A→B→A/);
  assert.match(item.tooltip, /found 2 times/);
});

test('a trace item names its site without an absolute path', () => {
  const item = traceItem({ id: 3, model: 'AODVSpecBug', kind: 'panic', message: 'boom', site: '/home/dev/ws/examples/aodv/rerr.go:57', length: 4 }, now);
  assert.match(item.tooltip, /at `aodv\/rerr\.go:57`/);
  assert.doesNotMatch(item.tooltip, /\/home\/dev/);
  assert.equal(shortSite('C:\\ws\\aodv\\rerr.go:57'), 'aodv/rerr.go:57');
  assert.equal(shortSite('rerr.go:57'), 'rerr.go:57');
});

test('a minimized trace says which it was made from', () => {
  const item = traceItem({ id: 8, model: 'AODVSpecBug', kind: 'invariant', name: 'NoLoop', length: 16, found: '2025-06-01T11:58:00Z', from: 7, how: 'minimized' }, now);
  assert.equal(item.description, 'invariant NoLoop · 16 steps · minimized from #7 · 2 min ago');
  assert.match(item.tooltip, /Minimized from #7\./);
});

test('a kept random walk has no kind', () => {
  const item = traceItem({ id: 2, model: 'TwoPhase', length: 1 }, now);
  assert.equal(item.description, 'random walk · 1 step');
  assert.equal(kindText({ kind: 'panic' }), 'panic');
});

test('a bookmark item', () => {
  const item = bookmarkItem({ name: 'before loop', trace: 7, step: 6, note: 'B still has a route', created: '2025-06-01T11:00:00Z' }, now);
  assert.equal(item.label, 'before loop');
  assert.equal(item.description, 'trace #7 step 6 · 1 h ago');
  assert.equal(item.contextValue, 'cmcBookmark');
  assert.match(item.tooltip, /B still has a route/);
});

test('lists are read from bodies or CLI output, sorted, bad records dropped', () => {
  const traces = tracesOf({ traces: [{ id: 1, model: 'A', length: 3 }, { id: 5, model: 'B' }, { model: 'no id' }] });
  assert.deepEqual(traces.map((t) => [t.id, t.length]), [[5, 0], [1, 3]]);
  assert.deepEqual(tracesOf(null), []);
  const bms = bookmarksOf([{ name: 'z', trace: 1, step: 2 }, { name: 'a', trace: 1 }, { trace: 3 }]);
  assert.deepEqual(bms.map((b) => [b.name, b.step]), [['a', 0], ['z', 2]]);
});

test('bookmark names', () => {
  assert.equal(checkBookmarkName(' ok '), undefined);
  assert.match(checkBookmarkName('  ')!, /Give the bookmark a name/);
  assert.match(checkBookmarkName('a\nb')!, /one line/);
  assert.match(checkBookmarkName('loop', ['loop'])!, /exists already/);
});

test('the step of a Call Stack frame', () => {
  assert.equal(stepOfFrame({ name: '#17 B: receive RERR from C' }), 17);
  assert.equal(stepOfFrame({ name: '#0 initial state' }), 0);
  assert.equal(stepOfFrame({ name: '#3 A.timeout › Choose(2) = 1' }), 3);
  assert.equal(stepOfFrame({ name: 'main' }), undefined);
  assert.equal(stepOfFrame(undefined), undefined);
});

test('a right-clicked Call Stack frame is known by the arguments VS Code passes, not by the focus', () => {
  // VS Code runs a debug/callstack/context command with the frame's source URI first, then its
  // context, whose frameId is VS Code's own string id, not the adapter's frame id.
  const frames = new Map([[27, { step: 13 }], [11, { step: 5 }]]);
  const args = ['file:///w/examples/aodv/router.go', { sessionId: 's1', threadId: 2, frameId: 'stackframe:thread:s1:2:3:router.go', frameName: '#5 B: receive RREP from C', frameLocation: {} }];
  assert.equal(frameStepOf(args, frames), 5);
  assert.equal(frameStepOf([{ frameName: '#0 initial state' }], frames), 0);
  // A client that passes the adapter's frame id.
  assert.equal(frameStepOf([{ frameId: 27 }], frames), 13);
  // Nothing says which frame: no step, so the command says so instead of using another one.
  assert.equal(frameStepOf(['file:///w/examples/aodv/router.go'], frames), undefined);
  assert.equal(frameStepOf([], frames), undefined);
  assert.equal(frameStepOf([{ frameId: 'stackframe:x', frameName: 'main' }], frames), undefined);
  // The frame's session, so a command on another session's frame acts on that session.
  assert.equal(frameSessionOf(args), 's1');
  assert.equal(frameSessionOf(['file:///w/a.go']), undefined);
});

test('tooltips show model text as text, not Markdown', () => {
  const item = traceItem({ id: 4, model: 'my_model', kind: 'invariant', name: 'NoLoop', message: 'x*y < 2 at [A]', length: 2 }, new Date('2025-06-01T12:00:00Z'));
  assert.match(item.tooltip, /my\\_model/);
  assert.match(item.tooltip, /x\\\*y \\< 2 at \\\[A\\\]/);
});

test('a trace is compared with any other stored trace, newest first', () => {
  const traces = [
    { id: 1, model: 'AODVSpecBug', kind: 'invariant', name: 'NoRoutingLoop', length: 16 },
    { id: 2, model: 'AODV', length: 12 },
    { id: 3, model: 'AODVSpecBug', kind: 'invariant', name: 'NoRoutingLoop', length: 16, from: 1, how: 'minimized' },
  ];
  assert.deepEqual(compareChoices(traces, 1).map((c) => [c.id, c.label, c.description]), [
    [3, '#3 AODVSpecBug', 'invariant NoRoutingLoop · 16 steps'],
    [2, '#2 AODV', 'random walk · 12 steps'],
  ]);
  assert.deepEqual(compareChoices([traces[0]], 1), []);
});

test('Check from Here names its bookmark after the place, and reuses it for the same place', () => {
  assert.deepEqual(hereBookmark([], 1, 12), { name: 'from #1 step 12', reuse: false });
  const marked = [{ name: 'from #1 step 12', trace: 1, step: 12 }];
  assert.deepEqual(hereBookmark(marked, 1, 12), { name: 'from #1 step 12', reuse: true });
  // The name taken by another place (a renamed or moved bookmark): the next free one.
  assert.deepEqual(hereBookmark([{ name: 'from #1 step 12', trace: 2, step: 3 }], 1, 12), { name: 'from #1 step 12 (2)', reuse: false });
  assert.deepEqual(hereBookmark([], undefined, 4), { name: 'from step 4', reuse: false });
});
