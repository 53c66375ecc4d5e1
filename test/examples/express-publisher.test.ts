import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleSyncPayload, deliver, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { describeWithChromium, launchChromium, renderPage } from '../helpers/chromium.js';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { publishingLifecycle } from './publishing-lifecycle.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, started with `npm start`:
// once with its defaults (PGlite in DATA_DIR, public URL http://HOST:PORT), once with
// DATABASE_URL (a real Postgres) and PUBLIC_URL.
const TOKEN = 'publisher-example-token-5f2c9a';
// PGlite (Postgres in WebAssembly) creates its database at the first start: seconds, more on a busy machine.
const STARTUP = { timeoutMs: 120_000 };
let starter: CopiedStarter;
let server: RunningStarter;
let outside = '';
let postgres: StartedPostgres | undefined;

beforeAll(async () => {
  starter = await copyStarter('express-publisher');
  outside = await mkdtemp(join(tmpdir(), 'publisher-'));
  server = await startStarter(
    starter.dir,
    {
      WEBHOOK_TOKEN: TOKEN,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(outside, 'data'),
    },
    STARTUP,
  );
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await starter?.remove();
  await postgres?.stop();
  await rm(outside, { recursive: true, force: true });
});

const endpoint = () => server.url;
const site = () => server.url.replace(/\/webhook$/, '');
const post = (payload: object, token = TOKEN) => send(endpoint(), signDelivery({ token, payload }));

describe('examples/express-publisher, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('`npm start` listens on HOST and the port from PORT, and keeps its PGlite database in DATA_DIR', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    expect(server.url).not.toContain(':3000/');
    expect(await readdir(join(outside, 'data'))).toContain('PG_VERSION');
  });

  it('plays the article lifecycle over HTTP: draft, publish, rename, stale retry, unpublish, schedule, trash, archive', async () => {
    // No PUBLIC_URL: published_url and canonical links use http://HOST:PORT.
    await publishingLifecycle({ webhook: endpoint(), site: site(), publicUrl: site(), token: TOKEN });
  }, 60_000);

  it('answers a redelivery of the same id as a duplicate, from the database', async () => {
    const payload = articleSyncPayload({ article: { slug: `once-${randomUUID().slice(0, 8)}` } });
    const first = await deliver(endpoint(), { token: TOKEN, payload, maxAttempts: 1 });
    const again = await deliver(endpoint(), { token: TOKEN, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
    expect(again.summary).toMatchObject({ ok: true, duplicate: true, publishedUrl: first.publishedUrl });
  });

  it('acknowledges the dashboard Test Connection, refuses a wrong token and never prints the token', async () => {
    expect((await post(testPayload())).body).toEqual({ ok: true });
    expect(await post(testPayload(), 'not-it')).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
    await server.waitFor('Test Connection received');
    expect(server.output()).not.toContain(TOKEN);
  });

  it('`npm start` without WEBHOOK_TOKEN fails with a message naming it', async () => {
    const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '', PORT: '0' });
    expect(code).not.toBe(0);
    expect(output).toContain('WEBHOOK_TOKEN is not set');
  });
});

describe('examples/express-publisher with DATABASE_URL and PUBLIC_URL', () => {
  let withPostgres: RunningStarter | undefined;
  let databaseUrl = '';
  beforeAll(async () => {
    postgres = await startPostgres();
    if (!postgres.url) return;
    // A database of its own, so the starter's tables never meet another test's.
    const database = `express_publisher_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(postgres.url);
    url.pathname = `/${database}`;
    databaseUrl = url.href;
    withPostgres = await startStarter(
      starter.dir,
      {
        WEBHOOK_TOKEN: TOKEN,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: join(outside, 'unused'),
        DATABASE_URL: databaseUrl,
        PUBLIC_URL: 'https://blog.example.com/',
      },
      STARTUP,
    );
  }, 120_000);
  afterAll(async () => {
    await withPostgres?.stop();
    if (!databaseUrl || !postgres?.url) return;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
  });

  it('plays the same lifecycle with articles in Postgres and published_url on PUBLIC_URL', async (context) => {
    if (!withPostgres) return context.skip(`no Postgres: ${HOW_TO_RUN_POSTGRES}`);
    const webhook = withPostgres.url;
    const target = {
      webhook,
      site: webhook.replace(/\/webhook$/, ''),
      publicUrl: 'https://blog.example.com',
      token: TOKEN,
    };
    await publishingLifecycle(target);
    // Nothing went to PGlite: the folder was never created.
    expect(await readdir(join(outside, 'unused')).catch(() => 'absent')).toBe('absent');
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const { rows } = await db.query('SELECT count(*)::int AS n FROM site_articles');
    await db.end();
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describeWithChromium('examples/express-publisher: the published page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('renders the title, meta description, canonical link and heading, and runs no script of the article', async () => {
    const slug = `in-chromium-${randomUUID().slice(0, 8)}`;
    const payload = articleSyncPayload({
      article: {
        slug,
        title: 'Rendered in Chromium',
        meta_description: 'The description a search result shows.',
        content_html: '<p>Body</p><img src="x" onerror="window.__stolen=1"><script>window.__stolen=2</script>',
      },
    });
    const { publishedUrl } = await deliver(endpoint(), { token: TOKEN, payload, maxAttempts: 1 });
    expect(publishedUrl).toBe(`${site()}/articles/${slug}`);
    expect(await renderPage(browser, publishedUrl!)).toEqual({
      status: 200,
      title: 'Rendered in Chromium',
      description: 'The description a search result shows.',
      canonical: publishedUrl,
      heading: 'Rendered in Chromium',
      scriptRan: false,
    });
  }, 60_000);
});
