// Runs in its own process with --expose-gc: how many heap bytes the memory store spends per
// remembered delivery at a million deliveries. Prints one JSON line for the parent.

import { randomBytes, randomUUID } from 'node:crypto';
import { memoryDedupStore } from 'webhook-cms-receiver';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const WINDOW_MS = 1000;
const clock = { at: 1_767_225_600_000 };
const store = memoryDedupStore({ maxEntries: 2_000_000, now: () => clock.at });
const OK = { ok: true };

function heapAfterGc() {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

// Shaped as verify() leaves them: the delivery id a header value, the signature cut out of
// the `sha256=<hex>` header text. Made in batches so the garbage they leave is collected
// before the heap is measured, while what the store keeps of them is counted.
// randomUUID() builds its text by concatenation, a tree of string pieces far larger than the
// flat string an HTTP header value is; the Buffer round trip flattens it like a header.
function claimOf() {
  const header = `sha256=${randomBytes(32).toString('hex')}`;
  const deliveryId = Buffer.from(randomUUID(), 'latin1').toString('latin1');
  return { deliveryId, signature: header.slice(7).toLowerCase(), signatureTtlMs: WINDOW_MS };
}

const remembered = [];
const before = heapAfterGc();
for (let i = 0; i < COUNT; i++) {
  const claim = claimOf();
  const outcome = store.claim(claim);
  if (outcome.state !== 'claimed') throw new Error(`claim ${i} found ${outcome.state}`);
  store.complete(claim, outcome.lease, OK);
  if (i % 1000 === 0) remembered.push(claim.deliveryId); // a sample, to replay as duplicates below
}
const inWindow = heapAfterGc();

// Past the window: retries keep arriving (duplicates add nothing) and each claim sweeps a
// little, so the signatures that can no longer verify are dropped.
clock.at += WINDOW_MS + 1;
let sweeps = 0;
for (let round = 0; round < 2 * Math.ceil(COUNT / 8); round++) {
  const outcome = store.claim({
    deliveryId: remembered[round % remembered.length],
    signature: '0'.repeat(64),
    signatureTtlMs: WINDOW_MS,
  });
  if (outcome.state !== 'done') throw new Error(`a remembered id was forgotten (${outcome.state})`);
  sweeps++;
}
const afterWindow = heapAfterGc();
globalThis.keepAlive = store; // the store must outlive the last measurement
const sample = `${remembered.length} sampled ids still answered done after ${sweeps} duplicate claims`;
process.stdout.write(
  `${JSON.stringify({ count: COUNT, inWindow: (inWindow - before) / COUNT, afterWindow: (afterWindow - before) / COUNT, sample })}\n`,
);
