import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';
import { listen } from '../helpers/listen.js';
import { freshTable, server as postgres } from '../postgres/postgres-clients.js';
import { connect, freshPrefix, redisUrl, type TestClient } from '../redis/redis-clients.js';

// Issue 45, defect 4: a flood of unauthenticated requests during a rotation window filled the
// kept store for the whole window, so the real delivery signed by the new token after them was
// answered 503 and never kept. The fair share (by token hash, the largest group gives way)
// keeps it, on every store, over real HTTP.

const OLD = 'fair-share-old-token-0123456789';
const NEW = 'fair-share-new-token-9876543210';
const JUNK = 1000;

const clients: TestClient[] = [];
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
  for (const pool of pools) await pool.end();
  await postgres.stop();
});

const stores: Array<{ name: string; make: () => Promise<DedupStore> | DedupStore; skip: boolean }> = [
  { name: 'memory', make: () => memoryDedupStore(), skip: false },
  {
    name: 'Redis',
    make: async () => {
      const client = await connect('redis');
      clients.push(client);
      return redisDedupStore(client.client, { keyPrefix: freshPrefix() });
    },
    skip: !redisUrl,
  },
  {
    name: 'Postgres',
    make: () => {
      const pool = new pg.Pool({ connectionString: postgres.url });
      pools.push(pool);
      return postgresDedupStore(pool, { table: freshTable('fair') });
    },
    skip: !postgres.url,
  },
];

/** Sends `count` requests with `concurrency` in flight; each answer's status goes to `statuses`. */
async function flood(url: string, count: number, make: () => { headers: Record<string, string>; body: string }) {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const { headers, body } = make();
      const response = await fetch(url, { method: 'POST', headers, body });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return Object.fromEntries(statuses);
}

/** A delivery as the service signs it, with a token nobody knows (a random one, or the one given). */
const junk = (token?: string) => () =>
  signDelivery({ token: token ?? `junk-${randomUUID()}`, payload: articleSyncPayload(), deliveryId: randomUUID() });

const floods = [
  { what: `${JUNK} requests from random tokens`, make: () => junk() },
  { what: `${JUNK} requests from one reused token`, make: () => junk(`reused-junk-${randomUUID()}`) },
];

describe.each(stores)('the rotation window on the $name store', ({ make, skip }) => {
  it.skipIf(skip).each(floods)(
    'keeps a real delivery sent after $what, and processes it once its token is known',
    async ({ make: makeFlood }) => {
      const tokens = { list: [OLD] };
      const receiver = createReceiver({
        token: () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 }),
        tokenCacheMs: 100,
        dedup: await make(),
        logger: false,
      });
      const { seen, until, handlers } = eventRecorder();
      const server = await listen(createServer(webhookHandler(receiver, handlers)));
      try {
        const url = `${server.url}/webhook`;
        expect(await flood(url, JUNK, makeFlood())).toEqual({ 503: JUNK });
        const deliveryId = `real-${randomUUID()}`;
        const real = signDelivery({ token: NEW, payload: articleSyncPayload(), deliveryId });
        const answer = await fetch(url, { method: 'POST', headers: real.headers, body: real.body });
        expect(answer.status).toBe(503);
        // The user updates the secret: the receiver re-reads it on its timer, with no new delivery.
        tokens.list = [NEW, OLD];
        // Bounded, so a regression fails here rather than at the test's timeout; generous for a loaded CI machine.
        await Promise.race([until(1), new Promise((resolve) => setTimeout(resolve, 15_000))]);
        expect(seen.map((event) => event.deliveryId)).toEqual([deliveryId]);
      } finally {
        await server.close();
      }
    },
    // 1,000 requests over HTTP per case: about 10 s here, several times that on a loaded 2-core machine.
    180_000,
  );
});
