// Issue 49 item 5: the inspector (src/inspector) appends a record per delivery to a file it
// trims to its newer half past `maxFileBytes`, and keeps nothing in memory. Accepted and
// refused deliveries with distinct ids and bodies must leave the file under its bound and the
// heap flat. 20,000 deliveries in npm test; a million with SOAK_BOUNDS_FULL=1 (about 100 µs
// each, a write and a stat), SOAK_BOUNDS_KEYS another count.

import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { createInspector } from 'webhook-cms-receiver/testing';
import { growthAfterWarmup } from './retained.js';

const full = process.env.SOAK_BOUNDS_FULL === '1';
const total = Number(process.env.SOAK_BOUNDS_KEYS || (full ? 1_000_000 : 20_000));
const TOKEN = 'soak-bounds-inspector-token';
const MAX_FILE_BYTES = 256 * 1024;

function delivery(i: number) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = `{"event":"test","timestamp":${timestamp},"article":null,"profile":null,"n":${i}}`;
  // One in four forged: refusals are recorded too.
  const key = i % 4 === 0 ? `forger-${i}` : TOKEN;
  const signature = createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex');
  const headers = {
    authorization: `Bearer ${TOKEN}`,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${signature}`,
    'x-service-delivery-id': `inspected-${i}`,
  };
  return { headers, body };
}

describe(`the inspector under ${total.toLocaleString('en-US')} distinct deliveries`, () => {
  it('keeps its file under maxFileBytes and nothing in memory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wcr-soak-inspector-'));
    const file = join(dir, 'deliveries.jsonl');
    let largest = 0;
    try {
      const receiver = createReceiver({
        token: TOKEN,
        dedup: false,
        logger: false,
        inspect: createInspector({ file, maxFileBytes: MAX_FILE_BYTES }),
      });
      const statuses = new Map<number, number>();
      const { growth, bytesPerKey } = await growthAfterWarmup({ total, warmup: total / 10 }, async (i) => {
        const { status } = await receiver.handle(delivery(i), { test: () => {} });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (i % 100 === 0) largest = Math.max(largest, statSync(file).size);
      });
      expect([...statuses.keys()].sort()).toEqual([200, 403]);
      // Trimmed after the append that crossed it: the bound plus one record (well under 4 KiB here).
      expect(largest).toBeLessThan(MAX_FILE_BYTES + 4_096);
      expect(statSync(file).size).toBeLessThan(MAX_FILE_BYTES + 4_096);
      // A record kept in memory per delivery would be its headers and body: hundreds of bytes.
      // 64, not 8: at 20,000 keys a GC's timing moves a few hundred KiB (8.4 seen under load).
      expect(bytesPerKey).toBeLessThan(64);
      expect(growth).toBeLessThan(4 * 1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);
});
