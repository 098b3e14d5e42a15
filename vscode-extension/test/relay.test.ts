import assert from 'node:assert/strict';
import { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocketServer } from 'ws';
import { RelayEvent, WsRelay, isViewsSocket } from '../src/relay';

test('only the announced views server\'s websocket is relayed', () => {
  assert.ok(isViewsSocket('ws://127.0.0.1:4000/ws?token=x', 'ws://127.0.0.1:4000'));
  assert.ok(!isViewsSocket('ws://127.0.0.1:4001/ws?token=x', 'ws://127.0.0.1:4000'));
  assert.ok(!isViewsSocket('ws://127.0.0.1:4000/other', 'ws://127.0.0.1:4000'));
  assert.ok(!isViewsSocket('ws://evil:4000/ws', 'ws://127.0.0.1:4000'));
  assert.ok(!isViewsSocket('nonsense', 'ws://127.0.0.1:4000'));
  assert.ok(!isViewsSocket('ws://127.0.0.1:4000/ws', undefined));
});

test('a refused URL closes at once without connecting', () => {
  const events: RelayEvent[] = [];
  const r = new WsRelay((e) => events.push(e), () => false);
  assert.ok(r.handle({ type: 'cmc.ws.open', id: 1, url: 'ws://elsewhere/ws' }));
  assert.deepEqual(events.map((e) => e.type), ['cmc.ws.error', 'cmc.ws.close']);
  assert.equal(r.handle({ type: 'cmc/gotoStep', step: 1 }), false);
});

test('the relay carries open, messages both ways and close', async () => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as AddressInfo).port;
  const origins: Array<string | undefined> = [];
  wss.on('connection', (ws, req) => {
    origins.push(req.headers.origin);
    ws.on('message', (d) => ws.send(`echo ${d}`));
  });
  const events: RelayEvent[] = [];
  let wake = () => {};
  const r = new WsRelay((e) => {
    events.push(e);
    wake();
  }, (url) => isViewsSocket(url, `ws://127.0.0.1:${port}`));
  const until = async (type: string) => {
    while (!events.some((e) => e.type === type)) await new Promise<void>((res) => (wake = res));
  };
  r.handle({ type: 'cmc.ws.open', id: 7, url: `ws://127.0.0.1:${port}/ws?token=t` });
  await until('cmc.ws.open');
  r.handle({ type: 'cmc.ws.send', id: 7, data: '{"id":1}' });
  await until('cmc.ws.message');
  assert.deepEqual(events.find((e) => e.type === 'cmc.ws.message'), { type: 'cmc.ws.message', id: 7, data: 'echo {"id":1}' });
  assert.deepEqual(origins, [undefined], 'the extension host sends no Origin');
  r.handle({ type: 'cmc.ws.close', id: 7 });
  await until('cmc.ws.close');
  r.closeAll();
  await new Promise((res) => wss.close(res));
});
