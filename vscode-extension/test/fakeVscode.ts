// A fake of the parts of the vscode module the views panel (src/panel.ts) and the session
// tracker (src/sessions.ts) use, for unit tests that run in plain node. Importing this module
// first makes require('vscode') return the fake; the fake records what the extension asked of
// the window, so a test can say what it did to the panel on each stop.

import Module from 'node:module';

type Listener<T> = (e: T) => void;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T) {
    for (const l of [...this.listeners]) l(e);
  }
  dispose() {
    this.listeners = [];
  }
}

/** A webview panel that counts what was done to it. */
export class FakePanel {
  reveals = 0;
  htmlSets = 0;
  posted: unknown[] = [];
  iconPath: unknown;
  private html = '';
  private readonly disposed = new EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  readonly webview = {
    cspSource: 'https://fake.vscode-resource',
    asWebviewUri: (u: { fsPath: string }) => ({ toString: () => 'https://fake.vscode-resource' + u.fsPath }),
    postMessage: async (m: unknown) => {
      this.posted.push(m);
      return true;
    },
    onDidReceiveMessage: (_l: Listener<unknown>) => ({ dispose() {} }),
    get html() {
      return panelOf(this).html;
    },
    set html(v: string) {
      const p = panelOf(this);
      p.html = v;
      p.htmlSets++;
    },
  };
  reveal() {
    this.reveals++;
  }
  dispose() {
    this.disposed.fire();
  }
}
const owners = new WeakMap<object, FakePanel>();
function panelOf(webview: object): FakePanel {
  return owners.get(webview)!;
}

export const window = {
  activeTextEditor: undefined as unknown,
  panels: [] as FakePanel[],
  createWebviewPanel(): FakePanel {
    const p = new FakePanel();
    owners.set(p.webview, p);
    this.panels.push(p);
    return p;
  },
};

export const debug = {
  activeDebugSession: undefined as { id: string; type: string } | undefined,
  activeStackItem: undefined as unknown,
  terminated: new EventEmitter<{ id: string }>(),
  onDidTerminateDebugSession: (l: Listener<{ id: string }>) => debug.terminated.event(l),
  onDidChangeActiveStackItem: (_l: Listener<unknown>) => ({ dispose() {} }),
  onDidChangeActiveDebugSession: (_l: Listener<unknown>) => ({ dispose() {} }),
};

export class DebugStackFrame {}

export const workspace = {
  getConfiguration: () => ({ get: <T>(_key: string, dflt: T) => dflt }),
};

export enum UIKind {
  Desktop = 1,
  Web = 2,
}
export const env = { uiKind: UIKind.Desktop, remoteName: undefined as string | undefined };

export enum ViewColumn {
  Beside = -2,
  One = 1,
  Two = 2,
}

export const Uri = { file: (fsPath: string) => ({ fsPath, toString: () => 'file://' + fsPath }) };

const fake = { EventEmitter, window, debug, DebugStackFrame, workspace, UIKind, env, ViewColumn, Uri };
const load = (Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load;
(Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load = function (req: string, ...rest: unknown[]) {
  return req === 'vscode' ? fake : load.call(this, req, ...rest);
};
