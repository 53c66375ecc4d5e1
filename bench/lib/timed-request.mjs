// One delivery over HTTP, timed from the start of the request to the end of its answer: the
// latency and queue suites' measurement, with the percentile they report.

import { request } from 'node:http';

const CHUNK = 64 * 1024;

/** Writes the body whole, or in 64 KiB chunks at `mbps` megabits per second, as a link would deliver it. */
async function writeBody(req, body, mbps) {
  if (!mbps) return void req.end(body);
  const start = process.hrtime.bigint();
  const nsPerChunk = (CHUNK * 8 * 1000) / mbps;
  for (let offset = 0, k = 1; offset < body.length; offset += CHUNK, k++) {
    req.write(body.subarray(offset, offset + CHUNK));
    // This process has a core of its own, so waiting by polling costs the server nothing.
    while (Number(process.hrtime.bigint() - start) < k * nsPerChunk) await new Promise(setImmediate);
  }
  req.end();
}

/**
 * Milliseconds from the start of the request to the end of its answer. Rejects unless the
 * answer is a 200 that `accepts` the text of, so a bench never times refusals.
 * @param {{ port: number, agent: import('node:http').Agent, mbps?: number }} client
 * @param {{ headers: Record<string, string>, body: Buffer | string }} delivery
 * @param {{ path: string, accepts: (text: string) => boolean }} route
 */
export function timedRequest({ port, agent, mbps = 0 }, delivery, { path, accepts }) {
  const { host, ...headers } = delivery.headers;
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (res.statusCode !== 200 || !accepts(text)) reject(new Error(`${path}: ${res.statusCode} ${text}`));
        else resolve(ms);
      });
    });
    req.on('error', reject);
    writeBody(req, delivery.body, mbps).catch(reject);
  });
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
