import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimizeMessage, parseMinimize, thousands } from '../src/results';

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
