// The CMC Views panel: the views bundle (heap graph, diff, sequence chart) in a webview beside
// the editor. cmcdap's views server pushes the step the debugger stops on to the page, so the
// panel follows the debugger; the panel also posts the step it sees, for bundles that want it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { panelHtml } from './panelHtml';
import { WsRelay, isViewsSocket } from './relay';
import { CmcSession, CmcSessions } from './sessions';

/**
 * Whether the panel's websocket goes through the extension host: in a browser-based or remote
 * VS Code the page cannot reach cmcdap's views server itself (see relay.ts).
 */
function relayed(): boolean {
  const setting = vscode.workspace.getConfiguration('cmc').get<string>('views.relay', 'auto');
  if (setting === 'always') return true;
  if (setting === 'never') return false;
  return vscode.env.uiKind === vscode.UIKind.Web || vscode.env.remoteName !== undefined;
}

/** What the panel shows: a page per session and views server. */
function keyOf(c: CmcSession | undefined): string {
  return c ? `${c.session.id} ${c.views?.url ?? ''}` : '';
}

export class ViewsPanel implements vscode.Disposable {
  static readonly viewType = 'cmc.views';
  private panel?: vscode.WebviewPanel;
  private shownKey?: string;
  private readonly mediaDir: string;
  private readonly resourcesDir: string;
  private relay?: WsRelay;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly openedFor = new Set<string>();

  constructor(private readonly extensionPath: string, private readonly sessions: CmcSessions) {
    this.mediaDir = path.join(extensionPath, 'media', 'views');
    this.resourcesDir = path.join(extensionPath, 'resources');
    this.disposables.push(
      sessions.onDidChangeViews((c) => {
        if (this.panel && c === sessions.active()) this.render(c);
      }),
      // The session shown has ended: its server is gone, so say so instead of a page that retries.
      sessions.onDidEnd((c) => {
        if (this.panel && this.shownKey === keyOf(c)) this.render(c);
      }),
      sessions.onDidChange((c) => {
        // Open on the first stop once the Call Stack is known, so VS Code has opened the
        // stopped step's source and the panel goes beside it. A panel that is open already (a
        // re-check's session) is left where the user put it: revealing it activates its editor
        // group, and VS Code un-maximizes a maximized group when another one is activated.
        if (c && c.topStep !== undefined && !this.openedFor.has(c.session.id)) {
          this.openedFor.add(c.session.id);
          if (!this.panel && vscode.workspace.getConfiguration('cmc').get<boolean>('views.openOnStop', true)) {
            setTimeout(() => {
              if (!this.panel) this.open(c, true);
            }, 300);
          }
        }
        if (!this.panel) return;
        const active = sessions.active();
        if (active && keyOf(active) !== this.shownKey) this.render(active);
        if (c && c === active) void this.panel.webview.postMessage({ type: 'cmc/step', step: c.focusedStep(), stopped: c.stopped });
      }),
    );
  }

  /** Opens (or reveals) the panel beside the editor. */
  open(c: CmcSession | undefined = this.sessions.active(), preserveFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      // The same html again would not load the page again, only close its relay.
      if (keyOf(c) === this.shownKey) return;
    } else {
      // Beside the active editor; with none, in a second column, so the source opens in the first.
      const viewColumn = vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Two;
      this.panel = vscode.window.createWebviewPanel(
        ViewsPanel.viewType,
        'CMC Views',
        { viewColumn, preserveFocus },
        {
          enableScripts: true,
          enableCommandUris: ['cmc.openViewsInBrowser', 'cmc.openTrace'],
          retainContextWhenHidden: true,
          localResourceRoots: [vscode.Uri.file(this.mediaDir), vscode.Uri.file(this.resourcesDir)],
        },
      );
      this.panel.iconPath = vscode.Uri.file(path.join(this.extensionPath, 'resources', 'cmc.svg'));
      this.panel.onDidDispose(() => {
        this.relay?.closeAll();
        this.relay = undefined;
        this.panel = undefined;
        this.shownKey = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    }
    this.render(c);
  }

  private render(c: CmcSession | undefined): void {
    if (!this.panel) return;
    const webview = this.panel.webview;
    const index = path.join(this.mediaDir, 'index.html');
    const indexHtml = fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : undefined;
    const assetBase = webview.asWebviewUri(vscode.Uri.file(this.mediaDir)).toString().replace(/\/?$/, '/');
    this.shownKey = keyOf(c);
    this.relay?.closeAll();
    this.relay = undefined;
    const prelude: string[] = [];
    const views = c?.ended ? undefined : c?.views;
    if (views && relayed()) {
      const panel = this.panel;
      this.relay = new WsRelay((e) => void panel.webview.postMessage(e), (url) => isViewsSocket(url, views.wsOrigin));
      prelude.push(webview.asWebviewUri(vscode.Uri.file(path.join(this.resourcesDir, 'ws-relay.js'))).toString());
    }
    const ended = c?.ended ? { trace: c.trace() } : undefined;
    webview.html = panelHtml({ indexHtml, assetBase, cspSource: webview.cspSource, views, session: c !== undefined, prelude, ended });
    if (c?.stopped) void webview.postMessage({ type: 'cmc/step', step: c.focusedStep(), stopped: true });
  }

  /**
   * Shows traces a and b side by side in the panel (the page's compare view), once the page has
   * loaded; it needs a running session's views server.
   */
  compare(a: number, b: number): boolean {
    const c = this.sessions.active();
    if (!c?.views || c.ended) return false;
    if (this.panel && keyOf(c) === this.shownKey) {
      this.panel.reveal(undefined, false);
      void this.panel.webview.postMessage({ type: 'cmc/compare', a, b });
      return true;
    }
    this.comparing = { a, b }; // sent when the page it loads says it is ready
    this.open(c);
    return true;
  }

  private comparing?: { a: number; b: number };

  /** Messages from the page: it may ask the debugger to go to a step it shows, or what if it went otherwise. */
  private onMessage(m: unknown): void {
    if (this.relay?.handle(m)) return;
    const msg = m as { type?: string; step?: unknown };
    const c = this.sessions.active();
    if (msg?.type === 'cmc/whatIf' && typeof msg.step === 'number') {
      void vscode.commands.executeCommand('cmc.whatIfStep', msg.step);
    } else if (msg?.type === 'cmc/gotoStep' && typeof msg.step === 'number' && c) {
      void c.request('cmc/gotoStep', { step: msg.step }).catch((e: Error) => vscode.window.showErrorMessage(`cmc: ${e.message}`));
    } else if (msg?.type === 'cmc/ready' && c?.views) {
      // The bundle (webview/src/main.ts) takes cmc/config with the server's page URL and token,
      // and reconnects only when the websocket it derives from them differs.
      void this.panel?.webview.postMessage({ type: 'cmc/config', url: c.views.url, token: c.views.token });
      if (this.comparing) void this.panel?.webview.postMessage({ type: 'cmc/compare', ...this.comparing });
      this.comparing = undefined;
    }
  }

  dispose(): void {
    this.relay?.closeAll();
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
