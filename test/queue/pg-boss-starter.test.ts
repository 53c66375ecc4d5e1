import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { copyStarter } from '../helpers/copy-starter.js';
import { startStarter } from '../helpers/starter-process.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { until } from './queue-helpers.js';

// examples/pg-boss-worker keeps one row per article, keyed by its id (issue 46: keyed by slug,
// a renamed article was published under both slugs, and a trash removed only one of them).
const token = 'pg-boss-starter-rename-token-41c7';
const server: StartedPostgres = await startPostgres();
afterAll(() => server.stop());
const title = 'examples/pg-boss-worker: a renamed article';

describe.skipIf(!server.url)(server.url ? title : `${title} (skipped: ${HOW_TO_RUN_POSTGRES})`, () => {
  it('is published under its new slug only, and a trash removes it', async () => {
    const starter = await copyStarter('pg-boss-worker');
    onTestFinished(() => starter.remove());
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

    const site = new pg.Client({ connectionString: url.href });
    await site.connect();
    onTestFinished(() => site.end());
    const slugs = async () =>
      (await site.query('SELECT slug FROM site_articles ORDER BY slug')).rows.map((row: { slug: string }) => row.slug);
    const send = async (payload: object) => {
      const signed = signDelivery({ token, payload });
      const response = await fetch(running.url, { method: 'POST', headers: signed.headers, body: signed.body });
      return response.json();
    };

    const id = randomUUID();
    await send(
      articleSyncPayload({ timestamp: 1_700_000_100, article: { id, slug: 'first-name', status: 'published' } }),
    );
    await until('the first slug', async () => (await slugs()).includes('first-name'), 30_000);
    await send(
      articleSyncPayload({ timestamp: 1_700_000_200, article: { id, slug: 'second-name', status: 'published' } }),
    );
    // The log line comes before the transaction commits: wait for the row, then for the old one to be gone.
    await until('the new slug', async () => (await slugs()).includes('second-name'), 30_000);
    expect(await slugs()).toEqual(['second-name']);
    await send(articleTrashPayload({ timestamp: 1_700_000_300, article: { id, slug: 'second-name' } }));
    await until('the trash', async () => (await slugs()).length === 0, 30_000);
  }, 240_000);
});
