import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterEach, expect, it } from 'vitest';
import { createReceiver, type Ledger, type LedgerRow } from 'webhook-cms-receiver';
import { type RedisClientLike, redisLedger } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { startPrivateRedis } from '../helpers/private-redis.js';
import { freePort } from '../setup/services.js';
import { describeWithRedis } from './redis-clients.js';

const token = 'redis-ledger-down-token';
const children: ChildProcess[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await Promise.resolve(close()).catch(() => {});
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function startRedis(port: number): Promise<ChildProcess> {
  const child = await startPrivateRedis(port, mkdtempSync(`${tmpdir()}/wcr-redis-ledger-`));
  children.push(child);
  return child;
}

/** The client settings the README recommends: fail at once while disconnected, reconnect in the background. */
const clients = {
  redis: async (url: string) => {
    const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.destroy());
    return client as RedisClientLike;
  },
  ioredis: async (url: string) => {
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 100,
      lazyConnect: true,
    });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.disconnect());
    return client as RedisClientLike;
  },
};

/** A receiver recording to `ledger`, its handler counting, its `warn` lines kept. */
function receiverOn(ledger: Ledger) {
  const warnings: string[] = [];
  let handled = 0;
  const receiver = createReceiver({
    token,
    ledger,
    logger: { warn: (...args: unknown[]) => warnings.push(String(args[0])), error: () => {} },
  });
  const deliver = async () => {
    const { headers, body } = signDelivery({ token, payload: articleSyncPayload() });
    return (await receiver.handle({ headers, body }, { 'article.sync': () => void handled++ })).status;
  };
  return { warnings, deliver, handled: () => handled };
}

describeWithRedis('redisLedger when Redis goes down and comes back', () => {
  it.each(Object.keys(clients) as (keyof typeof clients)[])(
    'with %s: answers 200 throughout, warns of the failed writes, and writes the buffered rows once Redis is back',
    async (name) => {
      const port = await freePort();
      const server = await startRedis(port);
      const ledger = redisLedger(await clients[name](`redis://127.0.0.1:${port}`), { flushMs: 10 });
      const { warnings, deliver, handled } = receiverOn(ledger);
      expect(await deliver()).toBe(200);
      await ledger.flush();
      expect((await ledger.list()).rows).toHaveLength(1);

      server.kill('SIGKILL');
      await once(server, 'exit');
      expect([await deliver(), await deliver()]).toEqual([200, 200]);
      await ledger.flush();
      expect(warnings.some((line) => /ledger/.test(line) && /failed/.test(line))).toBe(true);
      await expect(ledger.list()).rejects.toThrow();

      // A fresh Redis (no persistence): the row written before is gone, its scripts too (NOSCRIPT).
      await startRedis(port);
      expect(await deliver()).toBe(200);
      let rows: LedgerRow[] = [];
      for (let attempt = 0; attempt < 40 && rows.length < 3; attempt++) {
        await ledger.flush();
        rows = (await ledger.list().catch(() => ({ rows: [] }))).rows;
        if (rows.length < 3) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.status === 200 && row.code === 'ok' && row.copy === 1)).toBe(true);
      expect(handled()).toBe(4);
    },
    60_000,
  );

  it('answers without waiting for a write Redis holds back (CLIENT PAUSE WRITE)', async () => {
    const port = await freePort();
    await startRedis(port);
    const admin = new Redis(`redis://127.0.0.1:${port}`);
    closers.push(() => admin.disconnect());
    const ledger = redisLedger(await clients.ioredis(`redis://127.0.0.1:${port}`), { flushMs: 1 });
    const { deliver, handled } = receiverOn(ledger);
    await admin.call('CLIENT', 'PAUSE', '5000', 'WRITE');
    expect(await deliver()).toBe(200);
    let written = false;
    const flushing = ledger.flush().then(() => {
      written = true;
    });
    // The first row's write is held by the pause; the answers never wait for it.
    expect(await Promise.all([deliver(), deliver(), deliver()])).toEqual([200, 200, 200]);
    expect(written).toBe(false);
    expect(handled()).toBe(4);
    await admin.call('CLIENT', 'UNPAUSE');
    await flushing;
    await ledger.flush();
    expect((await ledger.list()).rows).toHaveLength(4);
  }, 30_000);
});
