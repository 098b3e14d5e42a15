// The views panel while a user steps: it is opened once, on the first stop, and never revealed or
// re-created again, so a panel the user maximized (or moved) stays as it is. VS Code un-maximizes
// an editor group as soon as another group is activated (its editor part does so in
// doSetGroupActive), which a reveal or a new panel does.

import './fakeVscode';
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import * as vscode from 'vscode';
import { ViewsPanel } from '../src/panel';
import { CmcSessions } from '../src/sessions';
import type { FakePanel } from './fakeVscode';

const fake = vscode as unknown as { window: { panels: FakePanel[] }; debug: { activeDebugSession?: { id: string; type: string } } };

/** A debug session as the tracker sees it: cmcdap's messages, the Call Stack's requests. */
function session(sessions: CmcSessions, id: string, port: number) {
  const s = { id, type: 'cmc', customRequest: async () => ({}) };
  fake.debug.activeDebugSession = s;
  const t = sessions.createDebugAdapterTracker(s as unknown as vscode.DebugSession);
  t.onDidSendMessage!({ type: 'event', event: 'cmc/views', body: { url: `http://127.0.0.1:${port}/?token=t` } });
  let seq = 0;
  return {
    /** One stop at step: stopped, then the Call Stack's stackTrace. */
    stop(step: number) {
      t.onDidSendMessage!({ type: 'event', event: 'stopped', body: { reason: 'step', threadId: 1 } });
      t.onWillReceiveMessage!({ type: 'request', command: 'stackTrace', seq: ++seq, arguments: { threadId: 1, startFrame: 0 } });
      t.onDidSendMessage!({ type: 'response', command: 'stackTrace', request_seq: seq, success: true, body: { stackFrames: [{ id: 1000 + step, name: `#${step} B.receive` }] } });
    },
  };
}

test('stepping opens the panel once and then only tells the page the step', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const sessions = new CmcSessions();
    const panel = new ViewsPanel('/ext', sessions);
    const s = session(sessions, 'one', 4001);
    s.stop(1);
    mock.timers.tick(300); // the panel opens just after the first stop
    assert.equal(fake.window.panels.length, 1);
    const p = fake.window.panels[0];
    const { reveals, htmlSets } = p;
    for (let step = 2; step <= 13; step++) s.stop(step);
    mock.timers.tick(1000);
    assert.equal(fake.window.panels.length, 1, 'no new panel while stepping');
    assert.equal(p.reveals, reveals, 'no reveal while stepping');
    assert.equal(p.htmlSets, htmlSets, 'the page is not reloaded while stepping');
    assert.deepEqual(p.posted.at(-1), { type: 'cmc/step', step: 13, stopped: true });

    // A second session (a re-check) gets the same panel with its own server's page, where the
    // user left it: not revealed, not re-created.
    const r = session(sessions, 'two', 4002);
    r.stop(1);
    mock.timers.tick(1000);
    for (let step = 2; step <= 5; step++) r.stop(step);
    assert.equal(fake.window.panels.length, 1, 'the re-check reuses the panel');
    assert.equal(p.reveals, reveals, 'the re-check does not reveal the panel');
    assert.equal(p.htmlSets, htmlSets + 1, 'the page is loaded once for the new server');
    assert.match(p.webview.html, /127\.0\.0\.1:4002/);
    panel.dispose();
    sessions.dispose();
  } finally {
    mock.timers.reset();
  }
});
