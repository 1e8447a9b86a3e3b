// A minimal CDP client on one WebSocket, for the benchmarks: no events, no
// timeouts, nothing between the caller and the socket that would count in
// what they measure.
import WebSocket from 'ws';

/** Opens url; resolves to { call(method, params, sessionId), close() }; call resolves to the whole answer ({ id, result } or { id, error }). */
export function cdp(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1 << 30 });
    let id = 0;
    const waiting = new Map();
    ws.on('message', (data) => {
      const m = JSON.parse(data);
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    });
    ws.once('open', () => resolve({
      call: (method, params = {}, sessionId) => new Promise((res) => {
        waiting.set(++id, res);
        ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      }),
      close: () => ws.close(),
    }));
    ws.once('error', reject);
  });
}
