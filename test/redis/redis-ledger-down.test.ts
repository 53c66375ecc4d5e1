import { once } from 'node:events';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { createReceiver, type Ledger, type LedgerRow } from 'webhook-cms-receiver';
import { redisLedger } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freePort } from '../setup/services.js';
import { privateRedisRig } from './private-redis-rig.js';
import { describeWithRedis } from './redis-clients.js';

const token = 'redis-ledger-down-token';
const { startRedis, clients, onClose } = privateRedisRig('redis-ledger');

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
    onClose(() => admin.disconnect());
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
