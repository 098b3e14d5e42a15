// The websocket to the Go server: requests with ids and their replies, and pushes (hello, show).
// It reconnects with back-off when the connection drops; calls made meanwhile wait for it. What
// each op takes and answers is generated from the Go server's table (views.Ops, types.gen.ts):
// a misspelt op or argument fails the type check, and the server still checks every request.

import type { Push, Reply, Requests } from "./types.gen";

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class Rpc {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private waiting: (() => void)[] = [];
  private retry = 500;
  private stopped = false;
  onPush: (p: Push) => void = () => {};
  onStatus: (status: string) => void = () => {};

  constructor(private url: string) {}

  connect() {
    this.stopped = false;
    this.onStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 500;
      this.onStatus("connected");
      for (const w of this.waiting.splice(0)) w();
    };
    ws.onmessage = (ev) => this.receive(String(ev.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const p of this.pending.values()) p.reject(new Error("connection closed"));
      this.pending.clear();
      if (this.stopped) return;
      this.onStatus(`disconnected; retrying in ${Math.round(this.retry / 1000)}s`);
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }

  // reconnect drops the connection and opens one to url (VS Code sends a new one per session).
  reconnect(url: string) {
    this.url = url;
    const old = this.ws;
    this.ws = null;
    old?.close();
    this.connect();
  }

  private receive(text: string) {
    let m: Reply | Push;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if ("push" in m) {
      this.onPush(m);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error));
    else p.resolve(m.result);
  }

  async call<Op extends keyof Requests>(op: Op, args: Requests[Op]["args"]): Promise<Requests[Op]["result"]> {
    while (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      await new Promise<void>((r) => this.waiting.push(r));
    }
    const id = this.nextId++;
    const ws = this.ws;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(JSON.stringify({ ...args, op, id }));
    });
  }
}
