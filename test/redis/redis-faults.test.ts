import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { type RedisClientLike, redisDedupStore } from 'webhook-cms-receiver/redis';
import {
  DUPLICATE,
  expectRetryRunsOnce,
  FAULT_TOKEN,
  gate,
  HANDLED,
  syncDelivery,
  UNAVAILABLE,
  waitUntil,
  watchForCrashes,
} from '../stores/fault-kit.js';
import { freePort, waitForPort } from '../setup/services.js';
import { freshPrefix } from './redis-clients.js';

/** A client as a user keeps one: reconnecting on its own, with the `'error'` listener both libraries ask for. */
interface FaultClient {
  client: RedisClientLike;
  id(): Promise<number>;
  close(): Promise<void>;
}

async function open(name: 'redis' | 'ioredis', url: string): Promise<FaultClient> {
  if (name === 'redis') {
    const client = createClient({ url });
    client.on('error', () => {});
    await client.connect();
    return { client, id: async () => Number(await client.clientId()), close: () => client.close() };
  }
  const client = new Redis(url);
  client.on('error', () => {});
  return { client, id: async () => Number(await client.client('ID')), close: async () => void client.disconnect() };
}

/**
 * Its own redis-server: the tests pause it (CLIENT PAUSE) and kill connections (CLIENT KILL),
 * which would disturb the other test files on the shared one.
 */
describe('store faults: Redis drops the store’s connection (contract v3)', () => {
  watchForCrashes();
  let server: ChildProcess;
  let dir: string;
  let url: string;
  let admin: Redis;
  beforeAll(async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'wcr-redis-faults-'));
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir], {
      stdio: 'ignore',
    });
    await waitForPort(port, server);
    url = `redis://127.0.0.1:${port}`;
    admin = new Redis(url);
    admin.on('error', () => {});
  });
  afterAll(() => {
    admin?.disconnect();
    server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const command = (...args: string[]) => admin.call(args[0]!, ...args.slice(1)) as Promise<unknown>;

  for (const name of ['redis', 'ioredis'] as const) {
    for (const ordering of [false, true]) {
      const mode = ordering ? ', ordering' : '';
      it(`${name}${mode}: the connection killed mid-claim → 503, the host lives, the retry runs once`, async () => {
        const redis = await open(name, url);
        const receiver = createReceiver({
          token: FAULT_TOKEN,
          ordering,
          dedup: redisDedupStore(redis.client, { keyPrefix: freshPrefix() }),
          onError: () => {},
        });
        let runs = 0;
        const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
        const delivery = syncDelivery(randomUUID());
        const id = await redis.id();
        // Paused, Redis holds the claim's script unanswered until the connection is killed.
        await command('CLIENT', 'PAUSE', '10000', 'WRITE');
        try {
          const answer = receiver.handle(delivery(), handlers);
          await waitUntil('the claim to reach Redis', async () => {
            const list = String(await command('CLIENT', 'LIST', 'ID', String(id)));
            return /cmd=eval/.test(list) ? true : undefined;
          });
          await command('CLIENT', 'KILL', 'ID', String(id));
          await command('CLIENT', 'UNPAUSE');
          if (name === 'redis') {
            expect(await answer).toEqual(UNAVAILABLE);
          } else {
            // ioredis re-sends a command left unanswered once it has reconnected
            // (autoResendUnfulfilledCommands), so this very claim goes through.
            expect(await answer).toEqual(HANDLED);
          }
        } finally {
          await command('CLIENT', 'UNPAUSE');
        }
        if (name === 'redis') {
          expect(runs).toBe(0);
          await expectRetryRunsOnce(receiver, delivery, handlers, () => runs);
        } else {
          expect(await receiver.handle(delivery(), handlers)).toEqual(DUPLICATE);
          expect(runs).toBe(1);
        }
        await redis.close();
      });

      it(`${name}${mode}: the connection killed while the handler runs → the host lives, the delivery runs once`, async () => {
        const redis = await open(name, url);
        const receiver = createReceiver({
          token: FAULT_TOKEN,
          ordering,
          dedup: redisDedupStore(redis.client, { keyPrefix: freshPrefix() }),
          onError: () => {},
        });
        const entered = gate();
        const resume = gate();
        let runs = 0;
        const handlers: WebhookHandlers = {
          'article.sync': async () => {
            runs++;
            entered.open();
            await resume.wait;
          },
        };
        const delivery = syncDelivery(randomUUID());
        const id = await redis.id();
        const answer = receiver.handle(delivery(), handlers);
        await entered.wait;
        await command('CLIENT', 'KILL', 'ID', String(id));
        // A handler outlasts a reconnect; one that returns within it may find its answer
        // unrecorded (200 and onError, the claim lapses after leaseMs, as documented).
        await waitUntil('the client to reconnect', async () =>
          (await redis.id().catch(() => id)) !== id ? true : undefined,
        );
        resume.open();
        // The client reconnected, so the answer is recorded and the service's retry is a duplicate.
        expect(await answer).toEqual(HANDLED);
        expect(await receiver.handle(delivery(), handlers)).toEqual(DUPLICATE);
        expect(runs).toBe(1);
        await redis.close();
      });
    }
  }
});
