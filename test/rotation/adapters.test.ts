import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import type { RunningServer } from '../helpers/listen.js';
import { adapters } from '../adapters/servers.js';

const OLD = 'adapter-rotation-old-0123456789';
const NEW = 'adapter-rotation-new-9876543210';
const entries = Object.entries(adapters);

/** Every adapter on a real loopback server, each with its own receiver from `make`. */
async function startAll(make: () => ReturnType<typeof createReceiver>) {
  const started = await Promise.all(entries.map(async ([name, start]) => [name, await start(make(), {})] as const));
  return Object.fromEntries(started) as Record<string, RunningServer>;
}

async function post(server: RunningServer, token: string) {
  const { headers, body } = signDelivery({ token, payload: articleSyncPayload() });
  const response = await fetch(`${server.url}/webhook`, { method: 'POST', headers, body });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

describe('every adapter sends the token source and rotation answers on the wire', () => {
  let rotating: Record<string, RunningServer>;
  let unavailable: Record<string, RunningServer>;
  beforeAll(async () => {
    rotating = await startAll(() =>
      createReceiver({ token: async () => [OLD], rotatingUntil: Date.now() + 3_600_000, logger: false }),
    );
    unavailable = await startAll(() =>
      createReceiver({
        token: () => {
          throw new Error('no secret yet');
        },
        logger: false,
        onError: () => {},
      }),
    );
  });
  afterAll(() => Promise.all([...Object.values(rotating), ...Object.values(unavailable)].map((s) => s.close())));

  it.each(entries.map(([name]) => name))('%s: 503 Token rotation in progress with Retry-After: 60', async (name) => {
    expect(await post(rotating[name]!, NEW)).toEqual({
      status: 503,
      retryAfter: '60',
      body: { error: 'Token rotation in progress' },
    });
    expect((await post(rotating[name]!, OLD)).status).toBe(200);
  });

  it.each(entries.map(([name]) => name))('%s: 503 Token unavailable before any good read', async (name) => {
    expect(await post(unavailable[name]!, OLD)).toMatchObject({ status: 503, body: { error: 'Token unavailable' } });
  });
});
