import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { articleSyncPayload, deliver } from 'webhook-cms-receiver/testing';
import { connect, describeWithRedis, freshPrefix, redisUrl, type TestClient } from './redis-clients.js';
import { startReceiverProcess, type ReceiverProcess, type ReceiverProcessOptions } from './receiver-processes.js';

const token = 'multi-process-token';

describeWithRedis('two receiver processes sharing one Redis', () => {
  let redis: TestClient;
  let prefix: string;
  let a: ReceiverProcess;
  let b: ReceiverProcess;
  const extra: ReceiverProcess[] = [];
  const start = async (
    options: Pick<ReceiverProcessOptions, 'name' | 'adapter' | 'client' | 'leaseMs' | 'behaviour'>,
  ) => startReceiverProcess({ ...options, redisUrl: redisUrl!, keyPrefix: prefix, token });

  beforeAll(async () => {
    prefix = freshPrefix();
    redis = await connect('redis');
    // One process per adapter and per client library.
    [a, b] = await Promise.all([
      start({ name: 'a', adapter: 'express', client: 'redis', leaseMs: 10_000 }),
      start({ name: 'b', adapter: 'fetch', client: 'ioredis', leaseMs: 10_000 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a, b, ...extra].map((process) => process?.stop()));
    await redis?.close();
  });

  /** Handler runs for a delivery id, counted in Redis by every process. */
  const runsOf = async (deliveryId: string) =>
    Number((await redis.command(['GET', `${prefix}runs:${deliveryId}`])) ?? 0);
  const article = (slug: string) => articleSyncPayload({ article: { slug } });

  it('handles each of 20 deliveries exactly once while 8 concurrent copies of each hit both processes', async () => {
    const deliveries = Array.from({ length: 20 }, (_, i) => ({ id: randomUUID(), payload: article(`post-${i}`) }));
    const copies = deliveries.flatMap(({ id, payload }) =>
      Array.from({ length: 8 }, (_, copy) =>
        deliver((copy % 2 ? a : b).webhookUrl, { token, payload, deliveryId: id, timeScale: 0.2 }),
      ),
    );
    const results = await Promise.all(copies);
    expect(results.map((result) => result.outcome)).toEqual(results.map(() => 'delivered'));
    for (const { id } of deliveries) expect(await runsOf(id)).toBe(1);
    // Every copy of a delivery reports the one stored answer, whichever process ran it.
    for (const { id } of deliveries) {
      const urls = new Set(results.filter((result) => result.deliveryId === id).map((result) => result.publishedUrl));
      expect(urls.size).toBe(1);
    }
  });

  it("replays the stored response across processes: the other process answers with the first one's published_url", async () => {
    const id = randomUUID();
    const payload = article('replayed');
    const first = await deliver(a.webhookUrl, { token, payload, deliveryId: id });
    expect(first.publishedUrl).toBe('https://blog.example.com/replayed?by=a');
    const second = await deliver(b.webhookUrl, { token, payload, deliveryId: id });
    expect(second.attempts[0]!.body).toEqual({
      ok: true,
      published_url: 'https://blog.example.com/replayed?by=a',
      duplicate: true,
    });
    expect(await runsOf(id)).toBe(1);
  });

  it('frees the claim of a process killed mid-handler once its lease runs out, so the retry on the other process succeeds', async () => {
    const victim = await start({
      name: 'victim',
      adapter: 'fetch',
      client: 'redis',
      leaseMs: 2_000,
      behaviour: 'hang',
    });
    extra.push(victim);
    const id = randomUUID();
    const payload = article('survivor');
    const lost = deliver(victim.webhookUrl, { token, payload, deliveryId: id, maxAttempts: 1 });
    await victim.waitFor(new RegExp(`^handling ${id}$`));
    victim.child.kill('SIGKILL');
    expect((await lost).attempts[0]!.status).toBeNull();
    // The service's schedule, halved: attempts 0, 1, 3.5 and 8.5 s in; the 2 s lease frees in between.
    const retried = await deliver(b.webhookUrl, { token, payload, deliveryId: id, timeScale: 0.5 });
    expect(retried.attempts[0]!.status).toBe(409);
    expect(retried.outcome).toBe('delivered');
    expect(retried.publishedUrl).toBe('https://blog.example.com/survivor?by=b');
    expect(await runsOf(id)).toBe(2); // the killed run, then the retry
  });

  it('keeps a delivery with the process whose handler outlives its 300 ms lease: the other answers 409, then its answer', async () => {
    const slow = await start({ name: 'slow', adapter: 'express', client: 'ioredis', leaseMs: 300, behaviour: 'slow' });
    extra.push(slow);
    const id = randomUUID();
    const payload = article('renewed');
    const first = deliver(slow.webhookUrl, { token, payload, deliveryId: id, maxAttempts: 1 });
    await slow.waitFor(new RegExp(`^handling ${id}$`));
    // Retries after 0.4, 1 and 2 s: the 300 ms lease would have lapsed long before the 1.5 s
    // handler ends, had the slow process not renewed it.
    const copy = await deliver(b.webhookUrl, { token, payload, deliveryId: id, timeScale: 0.2 });
    expect(copy.attempts[0]!.status).toBe(409);
    expect(copy.attempts.at(-1)!.body).toEqual({
      ok: true,
      published_url: 'https://blog.example.com/renewed?by=slow',
      duplicate: true,
    });
    expect((await first).publishedUrl).toBe('https://blog.example.com/renewed?by=slow');
    expect(await runsOf(id)).toBe(1);
  });
});
