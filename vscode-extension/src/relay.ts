// The websocket relay of the views panel. A webview's page connects from the editor's origin: a
// desktop VS Code webview is vscode-webview://, which cmcdap's views server accepts, but in a
// browser-based VS Code (code-server, Codespaces) the page's origin is the editor's web server,
// which the views server refuses, and on a remote machine 127.0.0.1 is not even the machine
// cmcdap runs on. So there the page's WebSocket (resources/ws-relay.js replaces it) is carried
// over postMessage to the extension host, which runs beside cmcdap and connects for it. Only the
// views server the session announced may be reached this way.

import WebSocket from 'ws';

/** Messages from the page (ws-relay.js). */
export type RelayRequest =
  | { type: 'cmc.ws.open'; id: number; url: string }
  | { type: 'cmc.ws.send'; id: number; data: string }
  | { type: 'cmc.ws.close'; id: number };

/** Messages to the page. */
export type RelayEvent =
  | { type: 'cmc.ws.open'; id: number }
  | { type: 'cmc.ws.message'; id: number; data: string }
  | { type: 'cmc.ws.close'; id: number; code: number; reason: string }
  | { type: 'cmc.ws.error'; id: number; message: string };

export class WsRelay {
  private readonly sockets = new Map<number, WebSocket>();

  /**
   * post sends an event to the page; allowed says whether a URL is the announced views server's
   * websocket (the page may ask for anything).
   */
  constructor(private readonly post: (e: RelayEvent) => void, private readonly allowed: (url: string) => boolean) {}

  /** Handles a message from the page; false when it is not a relay message. */
  handle(m: unknown): boolean {
    const r = m as RelayRequest;
    if (!r || typeof r.type !== 'string' || !r.type.startsWith('cmc.ws.') || typeof r.id !== 'number') return false;
    switch (r.type) {
      case 'cmc.ws.open':
        this.open(r.id, r.url);
        return true;
      case 'cmc.ws.send':
        this.sockets.get(r.id)?.send(String(r.data));
        return true;
      case 'cmc.ws.close':
        this.sockets.get(r.id)?.close();
        this.sockets.delete(r.id);
        return true;
    }
    return false;
  }

  private open(id: number, url: string): void {
    if (typeof url !== 'string' || !this.allowed(url)) {
      this.post({ type: 'cmc.ws.error', id, message: `cmc: the views may only connect to the session's views server, not ${url}` });
      this.post({ type: 'cmc.ws.close', id, code: 1008, reason: 'not the views server' });
      return;
    }
    const ws = new WebSocket(url);
    this.sockets.set(id, ws);
    ws.on('open', () => this.post({ type: 'cmc.ws.open', id }));
    ws.on('message', (data, binary) => {
      if (!binary) this.post({ type: 'cmc.ws.message', id, data: data.toString() });
    });
    ws.on('error', (e) => this.post({ type: 'cmc.ws.error', id, message: e.message }));
    ws.on('close', (code, reason) => {
      this.sockets.delete(id);
      this.post({ type: 'cmc.ws.close', id, code, reason: reason.toString() });
    });
  }

  /** Closes every connection (the panel was closed or shows another session). */
  closeAll(): void {
    for (const ws of this.sockets.values()) ws.terminate();
    this.sockets.clear();
  }
}

/** Whether url is the websocket of the views server at wsOrigin (ws://host:port). */
export function isViewsSocket(url: string, wsOrigin: string | undefined): boolean {
  if (!wsOrigin) return false;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}` === wsOrigin && u.pathname === '/ws';
  } catch {
    return false;
  }
}
