import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimizeMessage, parseMinimize, reportMessage, thousands } from '../src/results';

test('a minimize that stopped at its bound offers a button that searches further, not a flag', () => {
  const r = parseMinimize('{"trace":7,"steps":38,"stored":9,"short_steps":16,"shortest":false,"states":100000}\n');
  const m = minimizeMessage(r);
  assert.equal(m.text, 'cmc: trace #9 is trace #7 in 16 steps instead of 38: no step can be left out, but the search for the shortest trace stopped at 100,000 states, so a shorter one may exist.');
  assert.deepEqual(m.retry, { states: 1000000, label: 'Search 1,000,000 States' });
  assert.equal(m.open, 9);
  assert.doesNotMatch(m.text, /-states|raise/);
});

test('a shortest trace, and a minimal one, offer no retry', () => {
  const m = minimizeMessage({ trace: 1, steps: 38, stored: 2, short_steps: 6, shortest: true, states: 100000 });
  assert.equal(m.text, 'cmc: trace #2 is trace #1 in 6 steps instead of 38: no shorter trace ends in the same violation.');
  assert.equal(m.retry, undefined);
  const same = minimizeMessage({ trace: 2, steps: 6, short_steps: 6, shortest: false, states: 1 });
  assert.match(same.text, /^cmc: trace #2 \(6 steps\) is minimal already: no step can be left out/);
  assert.equal(same.open, undefined);
  assert.equal(same.retry?.states, 10);
  assert.throws(() => parseMinimize('{"trace":"x"}'), /unexpected output/);
  assert.equal(thousands(3306004), '3,306,004');
});

test('a check that finds no violation ends with a visible result: states, time, complete or not', () => {
  const m = reportMessage({ model: 'AODV', states: 3306004, transitions: 9000000, depth: 31, seconds: 42.4, complete: true });
  assert.equal(m.notify, 'cmc: AODV: no violation in 3,306,004 states · 42 s · complete');
  assert.equal(m.label, 'AODV: no violation');
  assert.equal(m.description, '3,306,004 states · 42 s · complete');
  assert.equal(m.open, undefined);
  const bounded = reportMessage({ model: 'AODV', states: 1000, transitions: 2000, depth: 5, seconds: 0.5, complete: false });
  assert.match(bounded.notify!, /not complete \(bounded\)$/);
});

test('a re-check from a bookmark says which bookmark and how it compares with the original trace', () => {
  const bookmark = { name: 'stale rerr', trace: 7, step: 9, violation: 'invariant NoLoop: routing loop', steps: 13 };
  const fixed = reportMessage({ model: 'AODVSpecBug', states: 3306004, transitions: 1, depth: 1, seconds: 3, complete: true, bookmark,
    comparison: 'original: invariant NoLoop: routing loop at step 13 (trace 7); now: no violation in 3,306,004 states (complete)' });
  assert.equal(fixed.notify, 'cmc: AODVSpecBug from bookmark "stale rerr": original: invariant NoLoop: routing loop at step 13 (trace 7); now: no violation in 3,306,004 states (complete)');
  assert.equal(fixed.open, 7, 'the original trace');
  assert.match(fixed.tooltip, /now: no violation/);
  const again = reportMessage({ model: 'AODVSpecBug', states: 40, transitions: 1, depth: 1, seconds: 0.1, complete: false, violation: 'invariant NoLoop: routing loop', steps: 13, trace: 7, known: true, knownRun: 1, bookmark,
    comparison: 'original: invariant NoLoop: routing loop at step 13 (trace 7); now: the same violation along the same steps (trace 7)' });
  assert.equal(again.open, 7);
  assert.equal(again.label, 'AODVSpecBug from bookmark "stale rerr": violation, trace #7 again');
  assert.match(again.tooltip, /the same steps as trace #7, found before \(not stored again\)/);
});

test('a new violation opens in the debugger: a results line, no notification', () => {
  const m = reportMessage({ model: 'AODV', states: 900, transitions: 2000, depth: 13, seconds: 0.2, complete: false, violation: 'invariant NoLoop: loop', steps: 13, trace: 12 });
  assert.equal(m.notify, undefined);
  assert.equal(m.open, 12);
  assert.equal(m.label, 'AODV: violation');
});

test('a check that measured coverage reports the lines it ran, in the results view and the notification', () => {
  const coverage = { covered: 18, lines: 27, files: 2 };
  const m = reportMessage({ model: 'AODV', states: 60, transitions: 90, depth: 7, seconds: 1, complete: true, coverage });
  assert.equal(m.description, '60 states · 1.00 s · complete · 18 of 27 lines (67%)');
  assert.equal(m.notify, 'cmc: AODV: no violation in 60 states · 1.00 s · complete · 18 of 27 lines (67%)');
  assert.match(m.tooltip, /coverage of the code: 18 of 27 lines \(67%\) in 2 files/);
  const fixed = reportMessage({ model: 'AODV', states: 60, transitions: 90, depth: 7, seconds: 1, complete: true, coverage,
    bookmark: { name: 'stale rerr', trace: 7, step: 9, steps: 13 }, comparison: 'original: ...; now: no violation in 60 states (complete)' });
  assert.match(fixed.notify!, /now: no violation in 60 states \(complete\); 18 of 27 lines \(67%\) covered$/);
  assert.doesNotMatch(reportMessage({ model: 'AODV', states: 1, transitions: 1, depth: 1, seconds: 1, complete: true }).description, /lines/);
});
