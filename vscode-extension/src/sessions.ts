// What the extension knows about each running cmc debug session, learnt by watching the DAP
// messages cmcdap sends (a DebugAdapterTracker): the views server's URL (the cmc/views event),
// whether the session is stopped, and which step each Call Stack frame shows. The inline Choose
// values, the trees and the views panel all read it here.

import * as vscode from 'vscode';
import { Choice, choicesOf } from './choices';
import { ViewsEndpoint, parseViewsUrl } from './panelHtml';
import type { CustomRequests, Report } from './protocol.gen';
import { ReplFocus } from './replFocus';
import { stepOfFrame } from './trees';

export interface FrameInfo {
  step: number;
  path?: string;
  line?: number;
}

export class CmcSession {
  views?: ViewsEndpoint;
  stopped = false;
  /** Bumped on every stop: caches from an older stop are stale. */
  stops = 0;
  /** The step of the top frame of the last stop. */
  topStep?: number;
  frames = new Map<number, FrameInfo>();
  /** What the session's check found (cmc/result), once it has finished. */
  report?: Report;
  /** Whether the session has ended. */
  ended = false;
  /** Whether a stop came from a :goto typed in the Debug Console (see replFocus.ts). */
  readonly replFocus = new ReplFocus();
  private choicesCache?: { stop: number; value: Promise<Choice[]> };

  constructor(readonly session: vscode.DebugSession) {}

  /** The stored trace the session shows or showed: its check's, or the one it opened. */
  trace(): number | undefined {
    if (this.report?.trace) return this.report.trace;
    const t = this.session.configuration.trace;
    return typeof t === 'number' ? t : undefined;
  }

  /** Sends a custom request, with the arguments and body cmcdap's Go types say (protocol.gen.ts). */
  request<K extends keyof CustomRequests>(command: K, args: CustomRequests[K]['args']): Promise<CustomRequests[K]['body']> {
    return Promise.resolve(this.session.customRequest(command, args));
  }

  /** The Choose calls of the trace up to the current step (cached per stop). */
  choices(): Promise<Choice[]> {
    if (!this.stopped) return Promise.resolve([]);
    if (this.choicesCache?.stop !== this.stops) {
      const value = this.request('cmc/choices', {}).then(choicesOf, () => [] as Choice[]);
      this.choicesCache = { stop: this.stops, value };
    }
    return this.choicesCache.value;
  }

  /** The step the user is looking at: the focused frame's, else the top frame's. */
  focusedStep(): number | undefined {
    const item = vscode.debug.activeStackItem;
    if (item instanceof vscode.DebugStackFrame && item.session.id === this.session.id) {
      const f = this.frames.get(item.frameId);
      if (f) return f.step;
    }
    return this.topStep;
  }

  focusedFrame(): FrameInfo | undefined {
    const item = vscode.debug.activeStackItem;
    if (item instanceof vscode.DebugStackFrame && item.session.id === this.session.id) {
      return this.frames.get(item.frameId);
    }
    return this.topStep !== undefined ? [...this.frames.values()].find((f) => f.step === this.topStep) : undefined;
  }
}

type DapMessage = { type?: string; event?: string; command?: string; success?: boolean; body?: any; arguments?: any; seq?: number; request_seq?: number };

export class CmcSessions implements vscode.DebugAdapterTrackerFactory, vscode.Disposable {
  private readonly byId = new Map<string, CmcSession>();
  private readonly changed = new vscode.EventEmitter<CmcSession | undefined>();
  private readonly viewsChanged = new vscode.EventEmitter<CmcSession>();
  private readonly stoppedFirst = new vscode.EventEmitter<CmcSession>();
  private readonly bookmarksChanged = new vscode.EventEmitter<void>();
  private readonly reported = new vscode.EventEmitter<CmcSession>();
  private readonly endedEmitter = new vscode.EventEmitter<CmcSession>();
  /** Fires when a session's check has finished (cmc/result). */
  readonly onDidReport = this.reported.event;
  /** Fires when a session has ended. */
  readonly onDidEnd = this.endedEmitter.event;
  /** Fires when a session stops, moves, goes on or ends: what is shown may have changed. */
  readonly onDidChange = this.changed.event;
  /** Fires when a session announces its views server. */
  readonly onDidChangeViews = this.viewsChanged.event;
  /** Fires the first time a session stops. */
  readonly onDidStopFirst = this.stoppedFirst.event;
  /** Fires after a bookmark request succeeded. */
  readonly onDidChangeBookmarks = this.bookmarksChanged.event;
  private readonly stackArgs = new Map<number, { startFrame?: number }>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(
      vscode.debug.onDidTerminateDebugSession((s) => {
        const c = this.byId.get(s.id);
        if (!c) return;
        this.byId.delete(s.id);
        c.ended = true;
        c.stopped = false;
        this.endedEmitter.fire(c);
        this.changed.fire(undefined);
      }),
      vscode.debug.onDidChangeActiveStackItem(() => {
        const c = this.active();
        // VS Code has opened the new step's source with the focus: give it back to the console.
        if (c?.replFocus.take()) void vscode.commands.executeCommand('workbench.debug.action.focusRepl');
        this.changed.fire(c);
      }),
      vscode.debug.onDidChangeActiveDebugSession(() => this.changed.fire(this.active())),
    );
  }

  /** The active debug session, if it is a cmc one. */
  active(): CmcSession | undefined {
    const s = vscode.debug.activeDebugSession;
    return s && s.type === 'cmc' ? this.get(s) : undefined;
  }

  /** The cmc session with VS Code's session id, if it runs. */
  byID(id: string | undefined): CmcSession | undefined {
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Any cmc session: the active one first. */
  any(): CmcSession | undefined {
    return this.active() ?? [...this.byId.values()][0];
  }

  get(s: vscode.DebugSession): CmcSession {
    let c = this.byId.get(s.id);
    if (!c) {
      c = new CmcSession(s);
      this.byId.set(s.id, c);
    }
    return c;
  }

  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    const c = this.get(session);
    return {
      onWillReceiveMessage: (m: DapMessage) => {
        c.replFocus.sent(m);
        if (m.type === 'request' && m.command === 'stackTrace' && typeof m.seq === 'number') {
          this.stackArgs.set(m.seq, m.arguments ?? {});
        }
      },
      onDidSendMessage: (m: DapMessage) => this.onMessage(c, m),
    };
  }

  private onMessage(c: CmcSession, m: DapMessage): void {
    c.replFocus.received(m);
    if (m.type === 'event') {
      switch (m.event) {
        case 'cmc/views': {
          const v = parseViewsUrl(m.body);
          if (v) {
            c.views = v;
            this.viewsChanged.fire(c);
          }
          return;
        }
        case 'cmc/result':
          c.report = m.body as Report;
          this.reported.fire(c);
          return;
        case 'stopped': {
          const first = c.stops === 0;
          c.stopped = true;
          c.stops++;
          c.topStep = undefined;
          c.frames.clear();
          this.changed.fire(c);
          if (first) this.stoppedFirst.fire(c);
          return;
        }
        case 'continued':
          c.stopped = false;
          c.stops++;
          this.changed.fire(c);
          return;
        case 'terminated':
        case 'exited':
          c.stopped = false;
          this.changed.fire(c);
          return;
      }
      return;
    }
    if (m.type !== 'response' || !m.success) {
      if (m.type === 'response' && typeof m.request_seq === 'number') this.stackArgs.delete(m.request_seq);
      return;
    }
    if (m.command === 'stackTrace') {
      const args = this.stackArgs.get(m.request_seq ?? -1);
      this.stackArgs.delete(m.request_seq ?? -1);
      const frames: Array<{ id: number; name?: string; line?: number; source?: { path?: string } }> = m.body?.stackFrames ?? [];
      frames.forEach((f, i) => {
        const step = stepOfFrame(f);
        if (step === undefined) return;
        c.frames.set(f.id, { step, path: f.source?.path, line: f.line });
        // The top frame of the stopped thread's stack is where the trace is.
        if (i === 0 && (args?.startFrame ?? 0) === 0 && (c.topStep === undefined || step > c.topStep)) c.topStep = step;
      });
      this.changed.fire(c);
    } else if (m.command === 'cmc/addBookmark' || m.command === 'cmc/removeBookmark' || m.command === 'cmc/renameBookmark') {
      this.bookmarksChanged.fire();
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
    this.viewsChanged.dispose();
    this.stoppedFirst.dispose();
    this.bookmarksChanged.dispose();
    this.reported.dispose();
    this.endedEmitter.dispose();
  }
}
