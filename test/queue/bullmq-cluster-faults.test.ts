// The BullMQ fault matrix on a real 3-master Redis Cluster (issue 31), the rows of
// bullmq-faults.test.ts with BullMQ under a hash-tagged prefix (`{webhooks}`, as the README
// says), ioredis `Cluster` clients everywhere, spawned worker processes on the built package and
// the transactional Postgres store (the Redis store on the cluster where the lease matters). For
// every row: no worker process exits and every delivery answered 200 is processed.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullmqJobId } from 'webhook-cms-receiver/bullmq';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { describeWithCluster, type RunningCluster, startCluster } from '../redis/redis-cluster.js';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { clusterRigs, prefix, type Rig } from './bullmq-cluster-rig.js';
import { startBullWorker } from './bullmq-processes.js';
import { until } from './queue-helpers.js';

const built = existsSync(fileURLToPath(new URL('../../dist/bullmq.js', import.meta.url)));
const token = 'bullmq-cluster-faults-token';
const postgresServer: StartedPostgres = await startPostgres();
afterAll(() => postgresServer.stop());

let cluster: RunningCluster;
let pool: pg.Pool;
// The rigs exist once the cluster is up (beforeAll below).
let rigs: ReturnType<typeof clusterRigs>;
const rig = (...args: Parameters<typeof rigs.rig>) => rigs.rig(...args);
const clusterClient = () => rigs.clusterClient();
const dropClientConnections = () => rigs.dropClientConnections();

const hangOnce = () => articleSyncPayload({ article: { slug: 'hang-once' } });
const plain = (i: number) => articleSyncPayload({ article: { slug: `post-${i}` } });
const alive = (r: Rig) => r.workers.every((worker) => worker.alive());
const describeReady =
  built && postgresServer.url
    ? describeWithCluster
    : (name: string, body: () => void) => describe.skip(`${name} (skipped: needs PostgreSQL and \`npx tsup\`)`, body);

describeReady('BullMQ fault matrix on a real 3-master Redis Cluster (prefix {webhooks}, spawned workers)', () => {
  beforeAll(async () => {
    // Durable masters (append-only, fsync always), so the one restarted below keeps its jobs.
    cluster = await startCluster({ durable: true });
    pool = new pg.Pool({ connectionString: postgresServer.url, max: 4 });
    rigs = clusterRigs(cluster, pool, postgresServer.url!);
  }, 60_000);
  afterAll(async () => {
    await rigs?.closeClients();
    await pool?.end();
    await cluster?.stop();
  });

  it('worker SIGKILL mid-job, Redis store on the cluster: deferred while the claim holds, not dead-lettered; one attempt lost', async () => {
    const r = await rig({ store: 'redis', env: { ATTEMPTS: '2', LEASE_MS: '3000' } });
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      expect(await r.send(hangOnce(), id)).toBe(200);
      const hanging = await Promise.any(
        r.workers.map((w, i) => w.waitFor(new RegExp(`^hanging ${id}$`)).then(() => i)),
      );
      await r.workers[hanging]!.kill();
      const survivor = r.workers[1 - hanging]!;
      r.workers.splice(hanging, 1);
      const job = await r.queue.getJob(await bullmqJobId(id));
      await until(
        'the job to finish',
        async () =>
          ((await job!.getState()) !== 'active' && (await r.effects()).includes(id)) ||
          (await job!.getState()) === 'failed',
        30_000,
      );
      expect(await job!.getState()).not.toBe('failed');
      expect(await r.effects()).toEqual([id]);
      expect(await r.runs(id)).toBe(2);
      // Deferred while the dead worker's claim held: a warning without a stack, never an error.
      const deferred = survivor.lines.filter((line) => line.includes(id) && line.startsWith('log warn'));
      expect(deferred.length).toBeGreaterThan(0);
      expect(deferred.some((line) => line.endsWith(' stack'))).toBe(false);
      expect(survivor.lines.filter((line) => line.startsWith('log error') || line.startsWith('dead'))).toEqual([]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('worker SIGKILL mid-job, transactional store: the killed write rolls back, the effect happens once', async () => {
    const r = await rig({ env: { ATTEMPTS: '2' } });
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      expect(await r.send(hangOnce(), id)).toBe(200);
      const hanging = await Promise.any(
        r.workers.map((w, i) => w.waitFor(new RegExp(`^hanging ${id}$`)).then(() => i)),
      );
      await r.workers[hanging]!.kill();
      r.workers.splice(hanging, 1);
      await until('the effect', async () => (await r.effects()).includes(id), 30_000);
      expect(await r.effects()).toEqual([id]);
      expect(await r.runs(id)).toBe(2);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('connection loss to every master while idle: deliveries accepted afterwards are processed, once each', async () => {
    const r = await rig();
    try {
      r.workers.push(await startBullWorker(r.env));
      expect(dropClientConnections()).toBeGreaterThan(0);
      const ids = Array.from({ length: 5 }, () => randomUUID());
      await until('the receiver to accept again', async () => (await r.send(plain(0), ids[0]!)) === 200, 30_000);
      for (const [i, id] of ids.slice(1).entries()) expect(await r.send(plain(i + 1), id)).toBe(200);
      await until('every effect', async () => (await r.effects()).length === ids.length, 30_000);
      expect((await r.effects()).sort()).toEqual([...ids].sort());
      expect(r.workers[0]!.lines.filter((line) => line.startsWith('dead'))).toEqual([]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('connection loss to every master mid-job: the running job and those queued behind it finish, once each', async () => {
    const r = await rig({ env: { SLOW_MS: '1500' } });
    try {
      r.workers.push(await startBullWorker(r.env));
      const slow = randomUUID();
      expect(await r.send(articleSyncPayload({ article: { slug: 'slow' } }), slow)).toBe(200);
      await r.workers[0]!.waitFor(new RegExp(`^running ${slow} 1$`));
      const accepted = [slow];
      for (const i of [0, 1, 2, 3]) {
        const id = randomUUID();
        if ((await r.send(plain(i), id)) === 200) accepted.push(id);
      }
      expect(dropClientConnections()).toBeGreaterThan(0);
      await until(
        'every accepted delivery',
        async () => {
          const effects = await r.effects();
          return accepted.every((id) => effects.includes(id));
        },
        60_000,
      );
      const effects = await r.effects();
      expect(effects.length).toBe(new Set(effects).size);
      for (const id of accepted) expect(await r.runs(id)).toBeLessThanOrEqual(2);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 90_000);

  // A cluster someone else started (REDIS_CLUSTER_NODES) cannot be restarted from here.
  it.skipIf(Boolean(process.env.REDIS_CLUSTER_NODES))(
    'the master holding the queue’s slot restarted mid-job: the running job and those accepted before finish, once each',
    async () => {
      const r = await rig({ env: { SLOW_MS: '1500' } });
      const probe = clusterClient();
      try {
        await probe.ping();
        const slot = Number(await probe.cluster('KEYSLOT', `${prefix}:${r.queue.name}:wait`));
        const owner = Number(probe.slots[slot]![0]!.split(':')[1]);
        r.workers.push(await startBullWorker(r.env));
        const slow = randomUUID();
        expect(await r.send(articleSyncPayload({ article: { slug: 'slow' } }), slow)).toBe(200);
        await r.workers[0]!.waitFor(new RegExp(`^running ${slow} 1$`));
        // Eight more slow ones: with a concurrency of 4, most still wait in the queue, in the
        // restarted master only, when it is killed.
        const accepted = [slow];
        for (let i = 0; i < 8; i++) {
          const id = randomUUID();
          if ((await r.send(articleSyncPayload({ article: { slug: 'slow' } }), id)) === 200) accepted.push(id);
        }
        expect(accepted.length).toBe(9);
        expect(await r.queue.getWaitingCount()).toBeGreaterThan(0);
        await cluster.restart!(owner);
        // Accepted once the master is back, without restarting anything else by hand.
        const after = randomUUID();
        await until('the receiver to accept again', async () => (await r.send(plain(9), after)) === 200, 30_000);
        accepted.push(after);
        await until(
          'every accepted delivery',
          async () => {
            const effects = await r.effects();
            return accepted.every((id) => effects.includes(id));
          },
          60_000,
        );
        const effects = await r.effects();
        expect(effects.length).toBe(new Set(effects).size);
        // Bounded: the restart costs a job at most the run it interrupted.
        for (const id of accepted) expect(await r.runs(id)).toBeLessThanOrEqual(2);
        expect(await r.queue.getFailedCount()).toBe(0);
        expect(alive(r)).toBe(true);
      } finally {
        await r.close();
      }
    },
    90_000,
  );

  it('a 10 MiB body (the receiver’s default limit): accepted, processed once', async () => {
    const r = await rig();
    try {
      r.workers.push(await startBullWorker(r.env));
      const id = randomUUID();
      const envelope = signDelivery({ token, payload: articleSyncPayload({ article: { content_html: '' } }) }).body;
      const html = 'x'.repeat(10 * 1024 * 1024 - Buffer.byteLength(envelope));
      const payload = articleSyncPayload({ article: { content_html: html } });
      expect(Buffer.byteLength(signDelivery({ token, payload }).body)).toBe(10 * 1024 * 1024);
      expect(await r.send(payload, id)).toBe(200);
      await until('the effect', async () => (await r.effects()).includes(id), 30_000);
      expect(await r.effects()).toEqual([id]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('poison jobs: a body that cannot be rebuilt and a handler that always throws are dead-lettered with the reason', async () => {
    const r = await rig({ env: { ATTEMPTS: '3' } });
    try {
      r.workers.push(await startBullWorker(r.env));
      await r.queue.add(
        'article.sync',
        {
          body: '{not json',
          deliveryId: 'poison-body',
          timestamp: 0,
          event: 'article.sync',
          tokenIndex: 0,
          receivedAt: 0,
        },
        { jobId: await bullmqJobId('poison-body') },
      );
      const throws = randomUUID();
      expect(await r.send(articleSyncPayload({ article: { slug: 'throws' } }), throws)).toBe(200);
      await until('both dead letters', async () => (await r.queue.getFailedCount()) === 2, 30_000);
      const failed = await r.queue.getFailed();
      const reasons = Object.fromEntries(failed.map((job) => [job.id, job.failedReason]));
      expect(reasons[await bullmqJobId('poison-body')]).toMatch(/not valid JSON/);
      expect(reasons[await bullmqJobId(throws)]).toMatch(/this handler always throws/);
      expect(await r.runs(throws)).toBe(3);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('40 concurrent copies of one delivery, to the receiver and as 40 jobs: one effect', async () => {
    const r = await rig();
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      const payload = articleSyncPayload({ article: { slug: 'slow' } });
      const statuses = await Promise.all(Array.from({ length: 40 }, () => r.send(payload, id)));
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
      const delivery = {
        body: JSON.stringify(payload),
        deliveryId: id,
        timestamp: payload.timestamp,
        event: 'article.sync',
        tokenIndex: 0,
        receivedAt: Date.now(),
      };
      await r.queue.addBulk(
        Array.from({ length: 40 }, (_, i) => ({ name: 'article.sync', data: delivery, opts: { jobId: `copy-${i}` } })),
      );
      const pending = async () => {
        const counts = await r.queue.getJobCounts('wait', 'delayed', 'active');
        return (counts.wait ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0);
      };
      await until(
        'every job to finish',
        async () => (await pending()) === 0 || (await r.queue.getFailedCount()) > 0,
        60_000,
      );
      expect(await r.queue.getFailedCount()).toBe(0);
      expect(await r.effects()).toEqual([id]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 90_000);
});
