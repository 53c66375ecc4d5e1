import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { redisLedger, redisLedgerStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, checkLedgerStore, signDelivery } from 'webhook-cms-receiver/testing';
import { connect, freshPrefix, type TestClient } from './redis-clients.js';
import {
  type ClusterClient,
  connectCluster,
  describeWithCluster,
  type RunningCluster,
  startCluster,
} from './redis-cluster.js';

const token = 'redis-ledger-cluster-token';

describeWithCluster('redisLedger on a real 3-master Redis Cluster', () => {
  let cluster: RunningCluster;
  let masters: TestClient[];
  beforeAll(async () => {
    cluster = await startCluster();
    masters = await Promise.all(cluster.nodes.map(({ url }) => connect('redis', url)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all((masters ?? []).map((master) => master.close()));
    await cluster?.stop();
  });

  describe.each(['redis', 'ioredis'] as const)('with the %s cluster client', (name) => {
    let redis: ClusterClient;
    beforeAll(async () => {
      redis = await connectCluster(name, cluster.nodes);
    });
    afterAll(() => redis?.close());

    it('passes the ledger store kit: every script’s keys are in one slot', async () => {
      const report = await checkLedgerStore(() => redisLedgerStore(redis.client, { keyPrefix: freshPrefix() }), {
        throwOnFailure: false,
      });
      expect(report.text).not.toMatch(/fail/i);
      expect(report.ok).toBe(true);
    }, 60_000);

    it('records a receiver’s deliveries on one master, whatever ids and tenants they carry', async () => {
      const keyPrefix = freshPrefix();
      const ledger = redisLedger(redis.client, { keyPrefix, keepRefused: true });
      const receiver = createReceiver({ token, ledger });
      for (const id of ['a', '{b}', 'c}{', '\u00e9\u{1f600}']) {
        const payload = articleSyncPayload({ article: { id } });
        const status = (await receiver.handle(signDelivery({ token, payload }), { 'article.sync': () => {} })).status;
        expect(status).toBe(200);
      }
      expect(
        (await receiver.handle(signDelivery({ token: 'wrong-token', payload: articleSyncPayload() }))).status,
      ).toBe(401);
      await ledger.flush();
      const { rows } = await ledger.list();
      expect(rows.map((row) => row.status)).toEqual([401, 200, 200, 200, 200]);
      expect((await ledger.list({ article: '{b}' })).rows).toHaveLength(1);
      const holding = [];
      for (const master of masters) {
        const keys = (await master.command(['KEYS', `${keyPrefix}*`])) as string[];
        if (keys.length > 0) holding.push(keys.length);
      }
      expect(holding).toHaveLength(1);
    }, 30_000);
  });
});
