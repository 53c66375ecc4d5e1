import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore, type WebhookEvent } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { rotationDrill } from 'webhook-cms-receiver/testing';
import { freshTable, openDatabase, server as postgres, type TestDatabase } from '../postgres/postgres-clients.js';
import { freshPrefix, redisUrl } from '../redis/redis-clients.js';

const OLD = 'drill-old-token-0123456789';
const NEW = 'drill-new-token-9876543210';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  await postgres.stop();
});

/** One store per row; each is opened only when its server runs here. */
const stores: Array<{ name: string; open: () => Promise<DedupStore | undefined> }> = [
  { name: 'memoryDedupStore', open: async () => memoryDedupStore() },
  {
    name: 'redisDedupStore',
    open: async () => {
      if (!redisUrl) return undefined;
      const { createClient } = await import('redis');
      const client = await createClient({ url: redisUrl }).connect();
      closers.push(() => client.quit());
      return redisDedupStore(client, { keyPrefix: freshPrefix() });
    },
  },
  {
    name: 'postgresDedupStore',
    open: async () => {
      if (!postgres.url) return undefined;
      const db: TestDatabase = await openDatabase('pg Pool');
      closers.push(() => db.close());
      return postgresDedupStore(db.client, { table: freshTable('drill') });
    },
  },
];

/** A receiver whose token source is a variable the drill's `updateSecret` changes. */
function rotatingReceiver(dedup: DedupStore, armed: boolean) {
  const secret = { tokens: [OLD] };
  const seen: string[] = [];
  const receiver = createReceiver({
    token: () => secret.tokens,
    ...(armed ? { rotatingUntil: Date.now() + 3_600_000 } : {}),
    tokenCacheMs: 50,
    dedup,
    logger: false,
  });
  const record = (event: WebhookEvent) => void seen.push(event.deliveryId!);
  const handlers = { 'article.sync': record };
  return {
    seen,
    send: (signed: Parameters<typeof receiver.handle>[0]) => receiver.handle(signed, handlers),
    updateSecret: () => {
      secret.tokens = [NEW, OLD];
    },
  };
}

describe.each(stores)('the rotation drill on $name', ({ open }) => {
  it('loses nothing with the window armed, and runs each delivery once', async () => {
    const store = await open();
    if (!store) return;
    const { seen, send, updateSecret } = rotatingReceiver(store, true);
    const drill = await rotationDrill({ send, oldToken: OLD, newToken: NEW, updateSecret, timeScale: 0.01 });
    expect(drill.lost).toEqual([]);
    expect(drill.ok).toBe(true);
    // Deliveries made between Regenerate and the secret's update were answered 503, then kept.
    expect(drill.deliveries.some((d) => d.attempts[0]!.status === 503)).toBe(true);
    expect([...seen].sort()).toEqual(drill.deliveries.map((d) => d.deliveryId).sort());
  });

  it('reports the deliveries lost to 401s without a window', async () => {
    const store = await open();
    if (!store) return;
    const { send, updateSecret } = rotatingReceiver(store, false);
    const drill = await rotationDrill({ send, oldToken: OLD, newToken: NEW, updateSecret, timeScale: 0.01 });
    expect(drill.ok).toBe(false);
    expect(drill.lost.length).toBeGreaterThan(0);
    expect(drill.lost.every((d) => d.outcome === 'refused' && d.attempts.at(-1)!.status === 401)).toBe(true);
  });
});
