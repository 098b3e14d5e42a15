import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReplFocus, movesFromConsole } from '../src/replFocus';

const gotoFromConsole = { type: 'request', command: 'evaluate', seq: 40, arguments: { context: 'repl', expression: ' :goto 5' } };
const stopped = { type: 'event', event: 'stopped', body: { reason: 'goto' } };

test('a :goto typed in the Debug Console gives the focus back to it after its stop, once', () => {
  const f = new ReplFocus();
  f.sent(gotoFromConsole);
  f.received({ type: 'response', command: 'evaluate', request_seq: 40, success: true });
  assert.equal(f.take(), false, 'not before the stop');
  f.received(stopped);
  assert.equal(f.take(), true);
  assert.equal(f.take(), false);
  f.received(stopped); // a later step (F10) keeps VS Code's focus
  assert.equal(f.take(), false);
});

test('a :goto that fails, a watch or hover evaluate, and other console input leave the focus alone', () => {
  const f = new ReplFocus();
  f.sent(gotoFromConsole);
  f.received({ type: 'response', command: 'evaluate', request_seq: 40, success: false });
  f.received(stopped);
  assert.equal(f.take(), false);
  assert.equal(movesFromConsole({ ...gotoFromConsole, arguments: { context: 'watch', expression: ':goto 5' } }), false);
  assert.equal(movesFromConsole({ ...gotoFromConsole, arguments: { context: 'repl', expression: 'B.seq' } }), false);
  assert.equal(movesFromConsole({ ...gotoFromConsole, arguments: { context: 'repl', expression: ':gotox' } }), false);
});
