import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { copyStarter } from '../helpers/copy-starter.js';
import { runStarter, startStarter } from '../helpers/starter-process.js';
import { until } from '../queue/queue-helpers.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';

const token = 'pg-boss-starter-token-8d2e';
const server: StartedPostgres = await startPostgres();
afterAll(() => server.stop());
const title = 'examples/pg-boss-worker, copied out of the repository';

describe.skipIf(!server.url)(server.url ? title : `${title} (skipped: ${HOW_TO_RUN_POSTGRES})`, () => {
  it('`npm run dev` starts receiver and worker: queued answers, one row per article, a late sync after a trash is skipped', async () => {
    const starter = await copyStarter('pg-boss-worker');
    onTestFinished(() => starter.remove());

    // Without DATABASE_URL it says what to set, and that PGlite is no option for pg-boss.
    const missing = await runStarter(
      starter.dir,
      { DATABASE_URL: '', WEBHOOK_TOKEN: token },
      { command: ['npm', 'run', 'dev'] },
    );
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('Set DATABASE_URL to a PostgreSQL server');
    expect(missing.output).toContain('PGlite cannot run it');

    // A database of its own on the test server: the starter uses pg-boss's default schema.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const database = `starter_${randomUUID().slice(0, 8)}`;
    await admin.query(`CREATE DATABASE ${database}`);
    onTestFinished(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
      await admin.end();
    });
    const url = new URL(server.url!);
    url.pathname = `/${database}`;
    const env = { DATABASE_URL: url.href, WEBHOOK_TOKEN: token, PORT: '0', HOST: '127.0.0.1' };
    const running = await startStarter(starter.dir, env, { command: ['npm', 'run', 'dev'], timeoutMs: 60_000 });
    onTestFinished(() => running.stop());
    expect(running.output()).toContain('worker ready on queue webhooks');

    const site = new pg.Client({ connectionString: url.href });
    await site.connect();
    onTestFinished(() => site.end());
    const slugs = async () =>
      (await site.query('SELECT slug FROM site_articles ORDER BY slug')).rows.map((row: { slug: string }) => row.slug);

    const send = async (payload: object, deliveryId?: string) => {
      const signed = signDelivery({ token, payload, ...(deliveryId ? { deliveryId } : {}) });
      const response = await fetch(running.url, { method: 'POST', headers: signed.headers, body: signed.body });
      return response.json();
    };
    const article = { id: randomUUID(), slug: 'queued-hello', status: 'published' as const };
    const deliveryId = randomUUID();
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_100, article }), deliveryId)).toEqual({
      ok: true,
      queued: true,
    });
    await until('the worker to publish', async () => (await slugs()).includes('queued-hello'), 30_000);
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_100, article }), deliveryId)).toEqual({
      ok: true,
      queued: true,
      duplicate: true,
    });

    expect(await send(articleTrashPayload({ timestamp: 1_700_000_300, article }))).toEqual({ ok: true, queued: true });
    await until('the worker to trash', async () => (await slugs()).length === 0, 30_000);
    // A sync older than the trash arrives late: ordering skips it, so the article stays gone.
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_200, article }))).toEqual({ ok: true, queued: true });
    await running.waitFor(`skipped a stale delivery for article ${article.id}`, 30_000);
    expect(await slugs()).toEqual([]);
    expect(running.output().match(/published queued-hello/g)).toHaveLength(1);
  }, 240_000);
});
