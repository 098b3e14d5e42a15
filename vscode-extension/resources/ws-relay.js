// cmc views panel: carries the page's WebSocket over postMessage to the extension host, which
// connects to cmcdap's views server for it (see vscode-extension/src/relay.ts for why). Loaded
// before the views bundle; the bundle's `new WebSocket(url)` gets a RelaySocket.
(function () {
  'use strict';
  var vscode = acquireVsCodeApi();
  window.acquireVsCodeApi = function () { return vscode; };
  var sockets = new Map();
  var nextId = 1;

  function RelaySocket(url) {
    var target = document.createDocumentFragment();
    this._target = target;
    this.url = String(url);
    this.readyState = 0;
    this.protocol = '';
    this.extensions = '';
    this.bufferedAmount = 0;
    this.binaryType = 'blob';
    this.onopen = null;
    this.onmessage = null;
    this.onerror = null;
    this.onclose = null;
    this._id = nextId++;
    sockets.set(this._id, this);
    vscode.postMessage({ type: 'cmc.ws.open', id: this._id, url: this.url });
  }
  RelaySocket.CONNECTING = RelaySocket.prototype.CONNECTING = 0;
  RelaySocket.OPEN = RelaySocket.prototype.OPEN = 1;
  RelaySocket.CLOSING = RelaySocket.prototype.CLOSING = 2;
  RelaySocket.CLOSED = RelaySocket.prototype.CLOSED = 3;
  RelaySocket.prototype.addEventListener = function (t, f, o) { this._target.addEventListener(t, f, o); };
  RelaySocket.prototype.removeEventListener = function (t, f, o) { this._target.removeEventListener(t, f, o); };
  RelaySocket.prototype._emit = function (ev) {
    var h = this['on' + ev.type];
    if (typeof h === 'function') h.call(this, ev);
    this._target.dispatchEvent(ev);
  };
  RelaySocket.prototype.send = function (data) {
    if (this.readyState !== 1) throw new DOMException('WebSocket is not open', 'InvalidStateError');
    vscode.postMessage({ type: 'cmc.ws.send', id: this._id, data: String(data) });
  };
  RelaySocket.prototype.close = function () {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    vscode.postMessage({ type: 'cmc.ws.close', id: this._id });
  };

  window.addEventListener('message', function (e) {
    var d = e.data;
    if (!d || typeof d.type !== 'string' || d.type.indexOf('cmc.ws.') !== 0) return;
    var s = sockets.get(d.id);
    if (!s) return;
    switch (d.type) {
      case 'cmc.ws.open':
        s.readyState = 1;
        s._emit(new Event('open'));
        break;
      case 'cmc.ws.message':
        s._emit(new MessageEvent('message', { data: d.data }));
        break;
      case 'cmc.ws.error':
        console.warn(d.message);
        s._emit(new Event('error'));
        break;
      case 'cmc.ws.close':
        s.readyState = 3;
        sockets.delete(d.id);
        s._emit(new CloseEvent('close', { code: d.code, reason: d.reason, wasClean: d.code === 1000 }));
        break;
    }
  });
  window.WebSocket = RelaySocket;
})();
