import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, DEFAULT_RETRY, JobFailure, startWorker } from 'webhook-cms-receiver';
import {
  pgBossDeadLetterQueue,
  pgBossJobId,
  pgBossQueue,
  pgBossSource,
  type PgBossJob,
} from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { freePort } from '../setup/services.js';
import { runCli } from '../cli/run-cli.js';
import { freshQueueName, until } from './queue-helpers.js';
import { describe } from 'vitest';

// pg-boss entries called exactly as the README and the TSDoc show them, with no extra option.
const token = 'pg-boss-defaults-token';
const root = fileURLToPath(new URL('../..', import.meta.url));
const built = fileURLToPath(new URL('../../dist/pg-boss.js', import.meta.url));
const server: StartedPostgres = await startPostgres();
const describeWithServer = (name: string, body: () => void) =>
  server.url ? describe(name, body) : describe.skip(`${name} (skipped: ${HOW_TO_RUN_POSTGRES})`, body);

describeWithServer('pg-boss as documented', () => {
  let pool: pg.Pool;
  let boss: PgBoss;
  const errors: unknown[] = [];
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: server.url });
    // As the README: one connection string, pg-boss's own schema and intervals.
    boss = new PgBoss(server.url!);
    boss.on('error', (error) => errors.push(error));
    await boss.start();
  }, 60_000);
  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true });
    await pool?.end();
    await server.stop();
  });

  it('startWorker(pgBossSource(boss, name), { handlers, dedup }) processes a delivery with every default', async () => {
    const name = freshQueueName('documented').replaceAll('-', '_');
    const table = `wcr_documented_${randomUUID().slice(0, 8)}`;
    await pool.query(`CREATE TABLE ${table} (delivery_id text PRIMARY KEY)`);
    const receiver = createReceiver({ token, queue: pgBossQueue(boss, name) });
    const worker = startWorker(pgBossSource(boss, name), {
      handlers: {
        'article.sync': async ({ deliveryId }, { tx }) => {
          await (tx as pg.PoolClient).query(`INSERT INTO ${table} VALUES ($1)`, [deliveryId]);
        },
      },
      dedup: postgresDedupStore(pool, { transactional: true, table: `${table}_dedup` }),
    });
    try {
      await worker.ready;
      const deliveryId = randomUUID();
      const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      expect(answer.body).toEqual({ ok: true, queued: true });
      await until('the job completed', async () => {
        const job = await boss.getJobById(name, await pgBossJobId(deliveryId));
        return job?.state === 'completed';
      });
      expect((await pool.query(`SELECT delivery_id FROM ${table}`)).rows).toEqual([{ delivery_id: deliveryId }]);
    } finally {
      await worker.close();
    }
  });

  it('worker.ready rejects, naming the fix, when PostgreSQL cannot be reached or the PgBoss was never started', async () => {
    const away = new PgBoss(`postgres://postgres@127.0.0.1:${await freePort()}/none`);
    away.on('error', () => {});
    // Started against a server that is gone: pg-boss cannot start, the user goes on anyway.
    await away.start().catch(() => {});
    const down = startWorker(pgBossSource(away, 'anything'), { handlers: {}, logger: false });
    await expect(down.ready).rejects.toThrow(/cannot reach PostgreSQL.*ECONNREFUSED.*connection string/s);
    const unstarted = new PgBoss(server.url!);
    const idle = startWorker(pgBossSource(unstarted, 'anything'), { handlers: {}, logger: false });
    await expect(idle.ready).rejects.toThrow(/await boss\.start\(\)/);
    await Promise.all([down.close(), idle.close()]);
  });

  it('dead letters carry the last error in their output, a fatal one and an exhausted one', async () => {
    const name = freshQueueName('reasons').replaceAll('-', '_');
    const retry = { attempts: 2, initialDelayMs: 1000 };
    const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry }) });
    const fatal = randomUUID();
    const exhausted = randomUUID();
    const worker = startWorker(pgBossSource(boss, name, { pollingIntervalSeconds: 0.5 }), {
      retry,
      logger: false,
      onError: () => {},
      handlers: {
        'article.sync': ({ deliveryId }) => {
          throw deliveryId === fatal
            ? Object.assign(new Error('the CMS refused the article: slug taken'), { fatal: true })
            : new Error('the CMS answered 502');
        },
      },
    });
    try {
      for (const deliveryId of [fatal, exhausted])
        await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      const dead = pgBossDeadLetterQueue(name);
      await until('two dead letters', async () => (await boss.getQueueSize(dead)) === 2, 20_000);
      const { rows } = await boss
        .getDb()
        .executeSql(`SELECT data->>'deliveryId' AS id, output FROM pgboss.job WHERE name = $1`, [dead]);
      const reasons = Object.fromEntries(rows.map((row: { id: string; output: unknown }) => [row.id, row.output]));
      expect(reasons[fatal]).toEqual({ error: 'the CMS refused the article: slug taken', attempt: 1 });
      expect(reasons[exhausted]).toEqual({ error: 'the CMS answered 502', attempt: 2 });
      // ... and `replay` lists each with its reason.
      const listed = await runCli([
        'replay',
        '--engine',
        'pg-boss',
        '--queue',
        name,
        '--database-url',
        server.url!,
        '--json',
      ]);
      expect(listed.code, listed.stderr).toBe(0);
      const shown = (JSON.parse(listed.stdout) as { deadLetters: Array<{ deliveryId: string; reason: string }> })
        .deadLetters;
      expect(Object.fromEntries(shown.map((letter) => [letter.deliveryId, letter.reason]))).toEqual({
        [fatal]: 'the CMS refused the article: slug taken',
        [exhausted]: 'the CMS answered 502',
      });
    } finally {
      await worker.close();
    }
  });

  it('a deferred run (another worker holds the delivery) waits its delay and uses up no attempt, even past the last', async () => {
    const name = freshQueueName('deferred').replaceAll('-', '_');
    const retry = { ...DEFAULT_RETRY, attempts: 2 };
    const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry }) });
    const deliveryId = randomUUID();
    await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
    const source = pgBossSource(boss, name, { pollingIntervalSeconds: 0.5 });
    const seen: Array<{ attempt: number; at: number }> = [];
    await source.start(
      async ({ attempt }) => {
        seen.push({ attempt, at: Date.now() });
        // Four times more than the job's attempts: each is a claim held elsewhere, not a failure.
        if (seen.length <= 4)
          throw new JobFailure(new Error('held by another worker'), { retry: true, delayMs: 300, deferred: true });
        return { ok: true };
      },
      { concurrency: 1, retry },
    );
    try {
      await until(
        'the job completed',
        async () => (await boss.getJobById(name, await pgBossJobId(deliveryId)))?.state === 'completed',
        20_000,
      );
      expect(seen.map((run) => run.attempt)).toEqual([1, 1, 1, 1, 1]);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(290);
      const job = (await boss.getJobById(name, await pgBossJobId(deliveryId))) as PgBossJob | null;
      expect(job?.retryCount).toBe(0);
      expect(await boss.getQueueSize(pgBossDeadLetterQueue(name))).toBe(0);
    } finally {
      await source.close();
    }
  });

  it.skipIf(!existsSync(built))(
    'a process that stops its PgBoss without closing the worker still exits, as with pg-boss workers',
    async () => {
      const script = `
      import PgBoss from 'pg-boss';
      import { startWorker } from 'webhook-cms-receiver';
      import { pgBossSource } from 'webhook-cms-receiver/pg-boss';
      const boss = new PgBoss(process.env.DATABASE_URL);
      boss.on('error', () => {});
      await boss.start();
      const worker = startWorker(pgBossSource(boss, 'exits_${randomUUID().slice(0, 8)}'), { handlers: {} });
      await worker.ready;
      await boss.stop({ graceful: false });
      console.log('stopped');`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: server.url },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let printed = '';
      child.stdout.on('data', (chunk: Buffer) => void (printed += chunk));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(printed).toContain('stopped');
      expect(code).toBe(0);
    },
    60_000,
  );
});
