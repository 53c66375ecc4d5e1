import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { copyMultiSite, type MultiSiteCopy, newToken, profileOf } from './multi-site-starter.js';

// examples/multi-site copied out as in multi-site.test.ts, with DATABASE_URL: a real Postgres,
// where the admin script works while the server runs.
let copy: MultiSiteCopy;
let postgres: StartedPostgres | undefined;
const admin: MultiSiteCopy['admin'] = (...args) => copy.admin(...args);

beforeAll(async () => {
  copy = await copyMultiSite();
}, 180_000);
afterAll(async () => {
  await postgres?.stop();
  await copy?.remove();
});

describe('examples/multi-site with DATABASE_URL: the admin script while the server runs', () => {
  let databaseUrl = '';
  beforeAll(async () => {
    postgres = await startPostgres();
    if (!postgres.url) return;
    // A database of its own, so the starter's tables never meet another test's.
    const database = `multi_site_${randomBytes(6).toString('hex')}`;
    const root = new pg.Client({ connectionString: postgres.url });
    await root.connect();
    await root.query(`CREATE DATABASE ${database}`);
    await root.end();
    const url = new URL(postgres.url);
    url.pathname = `/${database}`;
    databaseUrl = url.href;
  }, 120_000);
  afterAll(async () => {
    if (!databaseUrl || !postgres?.url) return;
    const root = new pg.Client({ connectionString: postgres.url });
    await root.connect();
    await root.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
    await root.end();
  });

  async function startLive(more: Record<string, string> = {}) {
    const live = { DATABASE_URL: databaseUrl, DATA_DIR: copy.dir('unused'), ...more };
    const running = await copy.start(live);
    onTestFinished(() => running.stop());
    expect(running.output()).toContain('sites in Postgres (DATABASE_URL)');
    return { running, live };
  }
  async function countArticles(siteId: string) {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM site_articles WHERE site_id = $1', [siteId]);
      return rows[0].n as number;
    } finally {
      await db.end();
    }
  }

  it('adds a site and rotates its token live; the old token is refused once the site is read again', async (context) => {
    if (!databaseUrl) return context.skip(`no Postgres: ${HOW_TO_RUN_POSTGRES}`);
    // TENANT_CACHE_MS=1: each request reads the site's row again, so finish-rotation shows at once.
    const { running, live } = await startLive({ TENANT_CACHE_MS: '1' });
    const site = { id: 'site-live', profile: 'prof-live', domain: 'live.example.net', token: newToken() };
    const sync = (token: string) =>
      send(running.url, signDelivery({ token, payload: articleSyncPayload({ profile: profileOf(site) }) }));
    expect((await sync(site.token)).status).toBe(401);
    const add = await admin(
      ['add-site', site.id, '--profile', site.profile, '--domain', site.domain],
      site.token,
      live,
    );
    expect(add.code).toBe(0);
    // An unknown hash is remembered for 1 s: the retry the service would make finds the new site.
    await expect.poll(async () => (await sync(site.token)).status, { timeout: 30_000, interval: 250 }).toBe(200);

    const rotated = newToken();
    expect((await admin(['rotate', site.id], rotated, live)).code).toBe(0);
    expect((await sync(rotated)).status).toBe(200);
    expect((await sync(site.token)).status).toBe(200);
    expect((await admin(['finish-rotation', site.id], undefined, live)).code).toBe(0);
    expect(await sync(site.token)).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
    expect((await sync(rotated)).status).toBe(200);
    expect(running.output()).not.toContain(rotated);
    expect(await countArticles(site.id)).toBe(4);
  }, 300_000);

  it("follows the README's rotation: with ROTATING_UNTIL armed, a delivery with the regenerated token is kept, then handled", async (context) => {
    if (!databaseUrl) return context.skip(`no Postgres: ${HOW_TO_RUN_POSTGRES}`);
    const site = { id: 'site-window', profile: 'prof-window', domain: 'window.example.net', token: newToken() };
    const added = await admin(['add-site', site.id, '--profile', site.profile, '--domain', site.domain], site.token, {
      DATABASE_URL: databaseUrl,
    });
    expect(added.code).toBe(0);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const { running, live } = await startLive({ ROTATING_UNTIL: until });
    // Regenerate: the service now signs with a token no site has yet.
    const regenerated = newToken();
    const payload = articleSyncPayload({ profile: profileOf(site), article: { slug: 'kept', status: 'published' } });
    const kept = await send(running.url, signDelivery({ token: regenerated, payload }));
    expect(kept).toMatchObject({ status: 503, body: { error: 'Token rotation in progress' } });
    expect(await countArticles(site.id)).toBe(0);
    expect((await admin(['rotate', site.id], regenerated, live)).code).toBe(0);
    // The service's next delivery with the new token finds the site (an unknown hash is
    // remembered for 1 s; the service retries after 2 s), and the kept one is handled.
    const next = () => send(running.url, signDelivery({ token: regenerated, payload: testPayload() }));
    await expect.poll(async () => (await next()).status, { timeout: 30_000, interval: 250 }).toBe(200);
    await running.waitFor(`sync  ${site.id}/kept`, 30_000);
    expect(await countArticles(site.id)).toBe(1);
    expect(running.output()).not.toContain(regenerated);
  }, 300_000);
});
