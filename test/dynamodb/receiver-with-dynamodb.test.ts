import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type KeptRequest } from 'webhook-cms-receiver';
import { dynamoDbDedupStore, KEPT_ITEM_MAX_BYTES } from 'webhook-cms-receiver/dynamodb';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient, PATIENT } from './dynamodb-clients.js';

const token = 'dynamodb-receiver-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithDynamoDb('createReceiver({ dedup: dynamoDbDedupStore(…) }) behind a node:http server', () => {
  let client: DynamoDBClient;
  let table: string;
  let server: Server;
  let url: string;
  const runs: string[] = [];
  let release = () => {};
  let held = Promise.resolve();
  beforeAll(async () => {
    client = localClient();
    table = await freshTable(client);
    const receiver = createReceiver({
      token,
      ordering: true,
      dedup: dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix() }),
    });
    server = createServer(
      webhookHandler(receiver, {
        'article.sync': async (event) => {
          runs.push(event.deliveryId!);
          // Held until the test has seen the copy in flight answered, however slow the machine.
          await held;
          return { publishedUrl: `https://blog.example.com/${event.article.slug}` };
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    client?.destroy();
  });

  const post = async (deliveryId: string, payload: object) => {
    const { headers, body } = signDelivery({ token, deliveryId, payload: payload as never });
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, body: await response.json() };
  };

  it('runs a delivery once, answers its copy in flight 409, and its retry as a duplicate with the stored answer', async () => {
    const deliveryId = randomUUID();
    const payload = articleSyncPayload({ article: { id: randomUUID(), slug: 'dynamo' } });
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = post(deliveryId, payload);
    while (!runs.includes(deliveryId)) await sleep(5);
    expect(await post(deliveryId, payload)).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
    release();
    expect(await first).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/dynamo' } });
    expect(await post(deliveryId, payload)).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://blog.example.com/dynamo', duplicate: true },
    });
    expect(runs.filter((id) => id === deliveryId)).toHaveLength(1);
  });

  it('answers a late sync after a newer one as stale (ordering), over HTTP', async () => {
    const article = { id: randomUUID(), slug: 'ordered' };
    expect((await post(randomUUID(), articleSyncPayload({ timestamp: 1_700_000_200, article }))).status).toBe(200);
    const late = randomUUID();
    expect(await post(late, articleSyncPayload({ timestamp: 1_700_000_100, article }))).toEqual({
      status: 200,
      body: { ok: true, stale: true },
    });
    expect(runs).not.toContain(late);
  });
});

describeWithDynamoDb('dynamoDbDedupStore kept requests (contract v4), shared through one table', () => {
  let client: DynamoDBClient;
  let table: string;
  beforeAll(async () => {
    client = localClient();
    table = await freshTable(client);
  });
  afterAll(() => client?.destroy());
  const request = (id: string, body = btoa('{"event":"test"}')): KeptRequest => ({
    id,
    tokenSha256: 'ab'.repeat(32),
    headers: { 'x-service-delivery-id': id },
    body,
    receivedAt: Date.now(),
  });

  it('bounds by count across instances, lists, hands each to one caller, clears and counts', async () => {
    const keyPrefix = freshPrefix();
    const [a, b] = [0, 1].map(() => dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix }).kept!);
    const limits = { maxCount: 3, maxBytes: 1024 * 1024, until: Date.now() + 60_000 };
    const kept = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a! : b!).keep(request(`k${i}`), limits)),
    );
    expect(kept.filter(Boolean)).toHaveLength(3);
    const listed = (await b!.list()).map(({ id }) => id).sort();
    expect(listed).toHaveLength(3);
    expect((await a!.list()).map(({ id }) => id).sort()).toEqual(listed);
    const taken = await Promise.all([a!.take(listed[0]!), b!.take(listed[0]!)]);
    expect(taken.filter(Boolean).map((one) => one!.id)).toEqual([listed[0]]);
    expect(taken.find(Boolean)).toEqual(expect.objectContaining({ id: listed[0], tokenSha256: 'ab'.repeat(32) }));
    // Taking one frees its place.
    expect(await a!.keep(request('late'), limits)).toBe(true);
    expect(await Promise.all([a!.clear(), b!.clear()]).then(([x, y]) => x + y)).toBe(3);
    expect(await a!.list()).toEqual([]);
  });

  it('bounds by bytes, and refuses a request larger than one DynamoDB item', async () => {
    const kept = dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix() }).kept!;
    const limits = { maxCount: 100, maxBytes: 3_000, until: Date.now() + 60_000 };
    const body = 'x'.repeat(1_000);
    expect(await kept.keep(request('b1', body), limits)).toBe(true);
    expect(await kept.keep(request('b2', body), limits)).toBe(true);
    expect(await kept.keep(request('b3', body), limits)).toBe(false);
    const huge = { ...limits, maxBytes: 64 * 1024 * 1024 };
    expect(await kept.keep(request('big', 'x'.repeat(KEPT_ITEM_MAX_BYTES)), huge)).toBe(false);
  });

  it('forgets a window that ended: its requests are no longer listed, and a new window starts from zero', async () => {
    const kept = dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix() }).kept!;
    const short = { maxCount: 1, maxBytes: 1024 * 1024, until: Date.now() + 300 };
    expect(await kept.keep(request('old'), short)).toBe(true);
    await sleep(400);
    expect(await kept.list()).toEqual([]);
    expect(await kept.take('old')).toBeUndefined();
    expect(await kept.keep(request('new'), { ...short, until: Date.now() + 60_000 })).toBe(true);
    expect((await kept.list()).map(({ id }) => id)).toEqual(['new']);
  });
});

describeWithDynamoDb('a token rotation on two receivers sharing a DynamoDB store', () => {
  it('keeps the request signed by the new token, processes it once when the token arrives; the other instance answers its retry as a duplicate', async () => {
    const OLD = 'dynamodb-rotation-old-token-0123';
    const NEW = 'dynamodb-rotation-new-token-4567';
    const client = localClient();
    const table = await freshTable(client);
    const keyPrefix = freshPrefix();
    const tokens = { list: [OLD] };
    const source = async () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 });
    const make = () =>
      createReceiver({
        token: source,
        tokenCacheMs: 50,
        logger: false,
        dedup: dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix }),
      });
    const [a, b] = [make(), make()];
    const { seen, until, handlers } = eventRecorder();
    const deliveryId = randomUUID();
    const payload = articleSyncPayload();
    const kept = await a.handle(signDelivery({ token: NEW, deliveryId, payload }), handlers);
    expect(kept).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(0);
    // Kept in the table, where every instance sees it.
    expect(await dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix }).kept!.list()).toHaveLength(1);
    tokens.list = [NEW, OLD];
    await until(1);
    expect(seen.map((event) => event.deliveryId)).toEqual([deliveryId]);
    // The service's retry, on the other instance: 409 while the kept copy is still being
    // recorded (its handler just returned), then the stored answer.
    let retry = await b.handle(signDelivery({ token: NEW, deliveryId, payload }), handlers);
    for (let i = 0; retry.status === 409 && i < 50; i++) {
      await sleep(100);
      retry = await b.handle(signDelivery({ token: NEW, deliveryId, payload }), handlers);
    }
    expect(retry).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    await sleep(200);
    expect(seen).toHaveLength(1);
    client.destroy();
  }, 30_000);
});
