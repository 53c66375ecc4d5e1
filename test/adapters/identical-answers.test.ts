import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send, type Answer, type Outgoing } from '../helpers/http-client.js';
import type { RunningServer } from '../helpers/listen.js';
import { vectors, type Vector } from '../helpers/vectors.js';
import { deliveryAt, MAX_BODY_BYTES, nowSeconds, TOKEN } from './deliveries.js';
import { adapters } from './servers.js';

const entries = Object.entries(adapters);
const [firstName = ''] = Object.keys(adapters);
const record = (event: WebhookEvent) => ({ publishedUrl: `https://blog.example.com/${event.name}` });
const handlers = { test: record, 'article.sync': record, 'article.trash': record, unknown: record };

/** Sends the same request to every adapter's server and returns the answers by adapter name. */
async function everyAdapter(
  servers: Record<string, RunningServer>,
  outgoing: Outgoing,
): Promise<Record<string, Answer>> {
  const answers = await Promise.all(
    Object.entries(servers).map(
      async ([name, server]) => [name, await send(`${server.url}/webhook`, outgoing)] as const,
    ),
  );
  return Object.fromEntries(answers);
}

/** Every adapter's answer equals the first one's, byte for byte of the JSON. */
function expectIdentical(byAdapter: Record<string, Answer>): Answer {
  const first = byAdapter[firstName];
  expect(Object.keys(byAdapter)).toEqual(Object.keys(adapters));
  expect(byAdapter).toEqual(Object.fromEntries(entries.map(([name]) => [name, first])));
  return first as Answer;
}

async function startAll(tokens: string[], now?: number): Promise<Record<string, RunningServer>> {
  const started = await Promise.all(
    entries.map(async ([name, start]) => {
      const receiver = createReceiver({
        token: tokens,
        maxBodyBytes: MAX_BODY_BYTES,
        ...(now ? { now: () => now * 1000, dedup: false } : {}),
      });
      return [name, await start(receiver, handlers)] as const;
    }),
  );
  return Object.fromEntries(started);
}

const closeAll = (servers: Record<string, RunningServer>) =>
  Promise.all(Object.values(servers).map((server) => server.close()));

describe('every adapter answers the shared signed vectors identically, as the contract says', () => {
  // One set of servers per receiver configuration (rotation vectors configure two tokens).
  const groups = new Map<string, { tokens: string[]; now: number; group: Vector[] }>();
  for (const vector of vectors) {
    const key = JSON.stringify([vector.tokens, vector.now]);
    const entry = groups.get(key) ?? { tokens: vector.tokens, now: vector.now, group: [] };
    entry.group.push(vector);
    groups.set(key, entry);
  }
  for (const { tokens, now, group } of groups.values()) {
    const servers: Record<string, RunningServer> = {};
    beforeAll(async () => Object.assign(servers, await startAll(tokens, now)));
    afterAll(() => closeAll(servers));

    it.each(group.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector: Vector) => {
      const answer = expectIdentical(await everyAdapter(servers, { headers: vector.headers, body: vector.body }));
      expect(answer.status).toBe(vector.expect.status);
      const expected =
        vector.expect.status === 200
          ? { ok: true, published_url: `https://blog.example.com/${vector.expect.event}` }
          : { error: vector.expect.error };
      expect(answer.body).toEqual(expected);
    });
  }
});

describe('every adapter answers a service session identically, dedup included', () => {
  let servers: Record<string, RunningServer> = {};
  beforeAll(async () => {
    servers = await startAll([TOKEN]);
  });
  afterAll(() => closeAll(servers));

  const sync = articleSyncPayload({ article: { slug: 'same-everywhere' } });
  const session: [string, () => Outgoing, number][] = [
    ['test event', () => signDelivery({ token: TOKEN, payload: testPayload() }), 200],
    ['sync', () => deliveryAt(sync, nowSeconds() - 20, 'delivery-identical'), 200],
    ['the same delivery again', () => deliveryAt(sync, nowSeconds(), 'delivery-identical'), 200],
    ['a captured request replayed under a new id', () => deliveryAt(sync, nowSeconds() - 20, 'delivery-replayed'), 200],
    [
      'trash',
      () => signDelivery({ token: TOKEN, payload: articleTrashPayload({ article: { slug: 'same-everywhere' } }) }),
      200,
    ],
    ['sync without delivery id', () => signDelivery({ token: TOKEN, payload: sync, deliveryId: null }), 400],
    ['PUT', () => ({ method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' }), 405],
    ['empty body', () => signDelivery({ token: TOKEN, payload: '' }), 400],
  ];
  // Run in order: the later steps depend on what the dedup store remembers from earlier ones.
  it.each(session.map(([name, make, status]) => [name, make, status] as const))('%s', async (_name, make, status) => {
    expect(expectIdentical(await everyAdapter(servers, make())).status).toBe(status);
  });
});
