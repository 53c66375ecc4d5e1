// Runs in its own process with --expose-gc: how many heap bytes the memory store spends per
// remembered delivery at a million deliveries, one key (the delivery id) per delivery.
// Prints one JSON line for the parent.

import { randomUUID } from 'node:crypto';
import { memoryDedupStore } from 'webhook-cms-receiver';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const store = memoryDedupStore({ maxEntries: 2_000_000 });
const OK = { ok: true };

function heapAfterGc() {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

// Shaped as verify() leaves it: the delivery id a flat header string. randomUUID() builds its
// text by concatenation, a tree of string pieces far larger than the flat string an HTTP header
// value is; the Buffer round trip flattens it like a header.
function claimOf() {
  return { deliveryId: Buffer.from(randomUUID(), 'latin1').toString('latin1') };
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
let duplicates = 0;
for (const deliveryId of remembered) {
  const outcome = store.claim({ deliveryId });
  if (outcome.state !== 'done') throw new Error(`a remembered id was forgotten (${outcome.state})`);
  duplicates++;
}
const afterWindow = heapAfterGc();
globalThis.keepAlive = store; // the store must outlive the last measurement
const sample = `${remembered.length} sampled ids still answered done (${duplicates} duplicate claims)`;
process.stdout.write(
  `${JSON.stringify({ count: COUNT, inWindow: (inWindow - before) / COUNT, afterWindow: (afterWindow - before) / COUNT, sample })}\n`,
);
