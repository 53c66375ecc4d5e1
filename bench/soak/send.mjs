// One HTTP POST of the soak, timed: keep-alive, the service's 10 s timeout, optionally
// trickled (a slow upload) or cut off half-way (a slowloris that never finishes its body).
// Resolves `{ status, ms, body }`, with `status: null` when no answer came (a killed receiver,
// a timeout, a connection the receiver closed); never rejects.

import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 128 });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {{ port: number }} target
 * @param {{ headers: Record<string,string>, body: string | Uint8Array, trickleMs?: number, abandonAfterMs?: number, declaredLength?: number }} delivery
 */
export function post(target, delivery) {
  const bytes = Buffer.from(delivery.body);
  const headers = { ...delivery.headers, 'content-length': String(delivery.declaredLength ?? bytes.length) };
  const started = performance.now();
  return new Promise((resolve) => {
    let status = null;
    let settled = false;
    const done = (error) => {
      if (settled) return;
      settled = true;
      resolve({ status, ms: performance.now() - started, error: error?.code ?? error?.message });
    };
    const req = request({ host: '127.0.0.1', port: target.port, method: 'POST', path: '/webhook', headers, agent });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('response', (res) => {
      status = res.statusCode;
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        try {
          delivery.answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {}
        done();
      });
      res.on('error', done);
    });
    // An early answer (413, 401) may close the socket while the body is still being written.
    req.on('error', done);
    write(req, bytes, delivery).catch(done);
  });
}

async function write(req, bytes, { trickleMs, abandonAfterMs, declaredLength }) {
  if (abandonAfterMs !== undefined) {
    req.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    await sleep(abandonAfterMs);
    req.destroy(new Error('abandoned'));
    return;
  }
  if (declaredLength !== undefined) {
    req.write(bytes); // fewer bytes than declared: the receiver must refuse on the header alone
    return;
  }
  if (!trickleMs) {
    req.end(bytes);
    return;
  }
  const pieces = 8;
  const size = Math.ceil(bytes.length / pieces);
  for (let i = 0; i < pieces && !req.destroyed; i++) {
    req.write(bytes.subarray(i * size, (i + 1) * size));
    await sleep(trickleMs / pieces);
  }
  req.end();
}

/** Closes the keep-alive sockets at the end of the run. */
export const closeAgent = () => agent.destroy();
