// Issue 49 item 5: the refusal log (src/receiver/hooks.ts) writes one line per error code a
// minute and counts the rest, in a table keyed by the code. Refusals that differ in everything
// else (token, signature, timestamp, body, delivery id) must neither add entries nor lines.
// 50,000 refusals in npm test; a million with SOAK_BOUNDS_FULL=1, SOAK_BOUNDS_KEYS another count.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { growthAfterWarmup } from './retained.js';

const full = process.env.SOAK_BOUNDS_FULL === '1';
const total = Number(process.env.SOAK_BOUNDS_KEYS || (full ? 1_000_000 : 50_000));
const TOKEN = 'soak-bounds-refusal-token';

/** Refusal i: one of five kinds, every value in it unique to i. */
function refusal(i: number) {
  const now = Math.floor(Date.now() / 1000);
  const stale = i % 5 === 2;
  const timestamp = String(stale ? now - 3_600 - i : now);
  const body = i % 5 === 3 ? `{"event":"test", broken ${i}` : `{"event":"test","timestamp":${timestamp},"n":${i}}`;
  const signed = createHmac('sha256', TOKEN).update(`${timestamp}.${body}`).digest('hex');
  const forged = createHmac('sha256', `forger-${i}`).update(`${timestamp}.${body}`).digest('hex');
  const headers: Record<string, string> = {
    authorization: `Bearer ${i % 5 === 0 ? `random-${i}` : TOKEN}`,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${i % 5 === 1 ? forged : signed}`,
    'x-service-delivery-id': `refused-${i}`,
  };
  if (i % 5 === 4) delete headers['x-service-timestamp'];
  return { headers, body };
}

describe(`the refusal log under ${total.toLocaleString('en-US')} distinct refusals`, () => {
  it('keeps one window per error code and writes a line per code a minute', async () => {
    const lines: string[] = [];
    const logger = { warn: (message: string) => lines.push(message), error: (message: string) => lines.push(message) };
    const receiver = createReceiver({ token: TOKEN, logger, dedup: false });
    const startedAt = Date.now();
    const { growth, bytesPerKey } = await growthAfterWarmup({ total, warmup: total / 10 }, async (i) => {
      const { status } = await receiver.handle(refusal(i), {});
      expect(status).toBeGreaterThanOrEqual(400);
    });
    // Each line names its code: `refused a delivery: 401 <code>: …`.
    const codes = new Set(lines.map((line) => /: \d{3} ([a-z_]+):/.exec(line)?.[1]));
    const minutes = Math.ceil((Date.now() - startedAt) / 60_000);
    // Five kinds of refusal, each under its own code: at most a line per code per minute begun.
    expect(codes.size).toBeGreaterThanOrEqual(4);
    expect(lines.length).toBeGreaterThanOrEqual(codes.size);
    expect(lines.length).toBeLessThanOrEqual(codes.size * (minutes + 1));
    // A window kept per refusal would be a key and a record: over 50 bytes each.
    expect(bytesPerKey).toBeLessThan(4);
    expect(growth).toBeLessThan(4 * 1024 * 1024);
  }, 900_000);
});
