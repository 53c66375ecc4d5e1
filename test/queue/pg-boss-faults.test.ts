import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, DEFAULT_MAX_BODY_BYTES } from 'webhook-cms-receiver';
import { pgBossDeadLetterQueue, pgBossJobId, pgBossQueue } from 'webhook-cms-receiver/pg-boss';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { type ChildLines, childLines } from '../helpers/child-lines.js';
import { type PrivatePostgres, startPrivatePostgres } from './pg-boss-private-postgres.js';
import { workerDefersHeldClaims } from './pg-boss-probe.js';
import { freshQueueName, sleep, until } from './queue-helpers.js';

// The fault matrix of queue mode on pg-boss: each row runs real worker processes (the built
// package) against a PostgreSQL of this file's own, which some rows stop and start again. For
// every row: no worker process exits, every delivery answered 200 queued is processed after the
// fault clears without restarting anything, and each effect (written through the /postgres
// transactional store's `tx`) happens once.
const script = fileURLToPath(new URL('./pg-boss-worker-process.mjs', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/pg-boss.js', import.meta.url)));
const postgres: PrivatePostgres | undefined = built ? await startPrivatePostgres() : undefined;
const defers = await workerDefersHeldClaims();
const token = 'pg-boss-faults-token';
const skip = !postgres ? ' (skipped: needs PostgreSQL server binaries and `npx tsup` for dist/)' : '';

describe.skipIf(!postgres)(`pg-boss fault matrix${skip}`, () => {
  const schema = `wcr_faults_${randomUUID().slice(0, 8)}`;
  let pool: pg.Pool;
  let boss: PgBoss;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: postgres!.url, max: 4 });
    pool.on('error', () => {});
    boss = new PgBoss({ connectionString: postgres!.url, schema });
    boss.on('error', () => {});
    await boss.start();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(children.splice(0).map(stopChild));
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true, timeout: 1000 }).catch(() => {});
    await pool?.end().catch(() => {});
    postgres?.destroy();
  });

  /** A queue with its tables, a receiver on it, and what the workers did. */
  async function row(label: string, retry = { attempts: 10, initialDelayMs: 1000 }) {
    const queue = freshQueueName(label).replaceAll('-', '_');
    const table = `wcr_${label}_${randomUUID().slice(0, 8)}`;
    await pool.query(`CREATE TABLE ${table}_runs (delivery_id text)`);
    await pool.query(`CREATE TABLE ${table}_effects (delivery_id text)`);
    const receiver = createReceiver({ token, queue: pgBossQueue(boss, queue, { retry, schema }), onError: () => {} });
    const env = {
      QUEUE: queue,
      TABLE: table,
      SCHEMA: schema,
      DATABASE_URL: postgres!.url,
      RETRY: JSON.stringify(retry),
    };
    return {
      queue,
      /**
       * Sends one delivery with this slug as the service does: a 409 (a copy in flight) or a 503
       * (the queue unreachable) is sent again. Resolves with its id once answered 200 queued.
       */
      async send(slug: string, deliveryId = randomUUID(), body?: string) {
        const payload = body ?? articleSyncPayload({ article: { slug } });
        for (let attempt = 1; ; attempt++) {
          const answer = await receiver.handle(signDelivery({ token, payload, deliveryId }));
          if ((answer.status === 409 || answer.status === 503) && attempt < 20) {
            await sleep(250);
            continue;
          }
          expect(answer.status).toBe(200);
          expect(answer.body).toMatchObject({ ok: true, queued: true });
          return deliveryId;
        }
      },
      worker: (extra: Record<string, string> = {}) => spawnWorker({ ...env, ...extra }),
      effects: async () =>
        (await pool.query(`SELECT delivery_id FROM ${table}_effects ORDER BY delivery_id`)).rows.map(
          (r: { delivery_id: string }) => r.delivery_id,
        ),
      runs: async (id: string) =>
        Number((await pool.query(`SELECT count(*) FROM ${table}_runs WHERE delivery_id = $1`, [id])).rows[0].count),
      job: async (id: string) => boss.getJobById(queue, await pgBossJobId(id)),
    };
  }

  function spawnWorker(env: Record<string, string>): ChildLines & { child: ChildProcess } {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return { child, ...childLines(child, 'pg-boss worker') };
  }

  const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

  it.skipIf(!defers)(
    'worker SIGKILL mid-job: the dead claim delays the job, the crash costs one attempt (3 attempts, 1 s backoff)' +
      (defers ? '' : ' (skipped: needs startWorker to mark a held claim JobFailure.deferred)'),
    async () => {
      // The plain store's claim outlives pg-boss's 1 s lease: before the fix, the re-runs met the
      // dead claim and used up the 3 attempts in about 4 s, and the delivery was dead-lettered.
      const r = await row('kill', { attempts: 3, initialDelayMs: 1000 });
      const env = { STORE: 'plain', LEASE_MS: '10000', EXPIRE_S: '1' };
      const first = r.worker(env);
      await first.waitFor(/^ready$/);
      const id = await r.send('hang-once');
      await first.waitFor(new RegExp(`^running ${id} 1$`));
      first.child.kill('SIGKILL');
      await first.exited;
      const second = r.worker(env);
      await second.waitFor(/^ready$/);
      await until('the effect', async () => (await r.effects()).length === 1, 60_000);
      expect(await r.effects()).toEqual([id]);
      await until('the job completed', async () => (await r.job(id))?.state === 'completed');
      // Run 1 was killed; run 2 (pg-boss's retry count 1) did it: the dead claim cost nothing.
      expect((await r.job(id))?.retryCount).toBe(1);
      expect(await r.runs(id)).toBe(2);
      expect(await boss.getQueueSize(pgBossDeadLetterQueue(r.queue))).toBe(0);
      expect(alive(second.child)).toBe(true);
    },
    90_000,
  );

  it('worker SIGKILL mid-job, transactional store: the effect written before the kill rolls back, and happens once', async () => {
    const r = await row('killtx', { attempts: 3, initialDelayMs: 1000 });
    const env = { EXPIRE_S: '1' };
    const first = r.worker(env);
    await first.waitFor(/^ready$/);
    const id = await r.send('hang-once');
    await first.waitFor(new RegExp(`^running ${id} 1$`));
    first.child.kill('SIGKILL');
    await first.exited;
    const second = r.worker(env);
    await second.waitFor(/^ready$/);
    await until('the job completed', async () => (await r.job(id))?.state === 'completed', 60_000);
    expect(await r.effects()).toEqual([id]);
    // The kill's lapsed lease is the one attempt the crash cost.
    expect((await r.job(id))?.retryCount).toBe(1);
    expect(alive(second.child)).toBe(true);
  }, 90_000);

  it('PostgreSQL restart mid-job: no worker exits, and every queued delivery is processed once it is back', async () => {
    const r = await row('restart');
    const worker = r.worker({ SLOW_MS: '2000' });
    await worker.waitFor(/^ready$/);
    const slow = await r.send('slow');
    await worker.waitFor(new RegExp(`^running ${slow} 1$`));
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await r.send('quick'));
    postgres!.stop();
    try {
      // The slow job ends while the database is away: its failure cannot be recorded yet.
      await worker.waitFor(/cannot record job/);
    } finally {
      postgres!.start();
    }
    await until('every effect', async () => (await r.effects().catch(() => [])).length === 6, 60_000);
    expect(await r.effects()).toEqual([slow, ...others].sort());
    expect(alive(worker.child)).toBe(true);
  }, 90_000);

  it('connection loss while idle: the worker takes the deliveries sent once PostgreSQL is back', async () => {
    const r = await row('idle');
    const worker = r.worker();
    await worker.waitFor(/^ready$/);
    postgres!.stop();
    try {
      // pg-boss's maintenance or the pool notices the loss: the worker has seen it.
      await worker.waitFor(/^boss-error /);
    } finally {
      postgres!.start();
    }
    const ids = [await r.send('quick'), await r.send('quick'), await r.send('quick')];
    await until('every effect', async () => (await r.effects()).length === 3, 60_000);
    expect(await r.effects()).toEqual(ids.sort());
    expect(alive(worker.child)).toBe(true);
  }, 90_000);

  it('a 10 MiB body (the receiver default limit) is queued and processed once', async () => {
    const r = await row('large');
    const worker = r.worker();
    await worker.waitFor(/^ready$/);
    const base = JSON.stringify(articleSyncPayload({ article: { slug: 'large', content_html: '' } }));
    const pad = 'x'.repeat(DEFAULT_MAX_BODY_BYTES - Buffer.byteLength(base));
    const body = base.replace('"content_html":""', `"content_html":"${pad}"`);
    expect(Buffer.byteLength(body)).toBe(DEFAULT_MAX_BODY_BYTES);
    const id = await r.send('large', randomUUID(), body);
    await until('the effect', async () => (await r.effects()).length === 1, 60_000);
    expect(await r.effects()).toEqual([id]);
    expect(alive(worker.child)).toBe(true);
  }, 90_000);

  it('poison jobs are dead-lettered with their reason, the worker goes on with the rest', async () => {
    const r = await row('poison', { attempts: 2, initialDelayMs: 1000 });
    const worker = r.worker();
    await worker.waitFor(/^ready$/);
    const poison = await r.send('poison');
    const fatal = await r.send('fatal');
    const good = [await r.send('quick'), await r.send('quick')];
    const dead = pgBossDeadLetterQueue(r.queue);
    await until('two dead letters', async () => (await boss.getQueueSize(dead)) === 2, 30_000);
    const { rows } = await pool.query(`SELECT data->>'deliveryId' AS id, output FROM ${schema}.job WHERE name = $1`, [
      dead,
    ]);
    expect(Object.fromEntries(rows.map((row: { id: string; output: unknown }) => [row.id, row.output]))).toEqual({
      [poison]: { error: 'poison job, run 2', attempt: 2 },
      [fatal]: { error: 'fatal job', attempt: 1 },
    });
    await until('the good effects', async () => (await r.effects()).length === 2);
    expect(await r.effects()).toEqual(good.sort());
    expect(alive(worker.child)).toBe(true);
  }, 90_000);

  it('40 concurrent copies of one delivery, two workers: one job, one effect', async () => {
    const r = await row('copies');
    const workers = [r.worker(), r.worker()];
    await Promise.all(workers.map((worker) => worker.waitFor(/^ready$/)));
    const id = randomUUID();
    await Promise.all(Array.from({ length: 40 }, () => r.send('quick', id)));
    await until('the effect', async () => (await r.effects()).length === 1);
    await until('the job completed', async () => (await r.job(id))?.state === 'completed');
    expect(await r.effects()).toEqual([id]);
    expect(await r.runs(id)).toBe(1);
    expect(workers.every((worker) => alive(worker.child))).toBe(true);
  }, 90_000);
});

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
