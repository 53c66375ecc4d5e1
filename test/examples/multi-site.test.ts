import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  probeEndpoint,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { expectInstalledFromTarball, expectProbePasses } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, run as its README says:
// sites added with `node admin.mjs`, the endpoint started with `npm start` on PGlite in DATA_DIR.
// PGlite is one process's database, so the admin commands run while the server is stopped.
const STARTUP = { timeoutMs: 120_000 };
const newToken = () => `whk_${randomBytes(24).toString('hex')}`;
const sites = {
  a: { id: 'site-a', profile: 'prof-a', domain: 'a.example.com', token: newToken() },
  b: { id: 'site-b', profile: 'prof-b', domain: 'Blog.B.example.org', token: newToken() },
  // The profile `probe --writes` names in its articles (the /testing fixtures' default).
  probe: { id: 'site-probe', profile: 'prof_42', domain: 'blog.example.com', token: newToken() },
};
type Site = (typeof sites)[keyof typeof sites];
const profileOf = (site: Site) => ({ id: site.profile, domain: site.domain.toLowerCase() });

let starter: CopiedStarter;
let outside = '';
let server: RunningStarter | undefined;
let postgres: StartedPostgres | undefined;
const env = () => ({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(outside, 'data') });

function admin(args: string[], token?: string, more: Record<string, string> = {}) {
  return runStarter(
    starter.dir,
    { ...env(), ...more, ...(token ? { SITE_TOKEN: token } : {}) },
    {
      command: ['node', 'admin.mjs', ...args],
      timeoutMs: 120_000,
    },
  );
}
async function start() {
  server = await startStarter(starter.dir, env(), STARTUP);
  return server;
}
async function stop() {
  await server?.stop();
  server = undefined;
}
const articles = async (site: Site) =>
  (await fetch(`${server!.url.replace(/\/webhook$/, '')}/sites/${site.id}/articles`)).json();

beforeAll(async () => {
  starter = await copyStarter('multi-site');
  outside = await mkdtemp(join(tmpdir(), 'multi-site-'));
}, 180_000);
afterAll(async () => {
  await stop();
  await postgres?.stop();
  await starter?.remove();
  await rm(outside, { recursive: true, force: true });
});

describe('examples/multi-site, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('adds sites with the admin script, which never prints a token', async () => {
    for (const site of [sites.a, sites.b, sites.probe]) {
      const added = await admin(['add-site', site.id, '--profile', site.profile, '--domain', site.domain], site.token);
      expect(added.output).toContain(`Added site ${site.id}`);
      expect(added.code).toBe(0);
      expect(added.output).not.toContain(site.token);
    }
    const taken = await admin(['add-site', 'site-c', '--profile', 'p', '--domain', 'c.example.com'], sites.a.token);
    expect(taken.code).not.toBe(0);
    expect(taken.output).toContain('already belongs to site "site-a"');
    expect(taken.output).not.toContain(sites.a.token);
    const listed = await admin(['list']);
    expect(listed.output).toContain('site-a  profile prof-a  a.example.com');
    expect(listed.output).toContain('site-b  profile prof-b  blog.b.example.org');
  }, 300_000);

  it("saves each site's deliveries under its own id, even with the same article id, and answers its published_url", async () => {
    const { url } = await start();
    const shared = articleSyncPayload({
      profile: profileOf(sites.a),
      article: { slug: 'hello', title: 'A', status: 'published' },
    });
    const forB = articleSyncPayload({
      profile: profileOf(sites.b),
      article: { id: shared.article.id, slug: 'hello', title: 'B', status: 'published' },
    });
    const a = await deliver(url, { token: sites.a.token, payload: shared, maxAttempts: 1 });
    const b = await deliver(url, { token: sites.b.token, payload: forB, deliveryId: a.deliveryId, maxAttempts: 1 });
    // Same delivery id, same article id: two sites, two deliveries, neither a duplicate of the other.
    expect(a.summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl: 'https://a.example.com/hello' });
    expect(b.summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl: 'https://blog.b.example.org/hello',
    });
    const again = await deliver(url, {
      token: sites.a.token,
      payload: shared,
      deliveryId: a.deliveryId,
      maxAttempts: 1,
    });
    expect(again.summary.duplicate).toBe(true);
    expect(await articles(sites.a)).toEqual([
      { id: shared.article.id, slug: 'hello', title: 'A', status: 'published' },
    ]);
    expect(await articles(sites.b)).toEqual([
      { id: shared.article.id, slug: 'hello', title: 'B', status: 'published' },
    ]);
    expect((await send(url, signDelivery({ token: sites.b.token, payload: testPayload() }))).body).toEqual({
      ok: true,
    });
    await server!.waitFor('test  site-b: Test Connection received');
    expect(server!.output()).toContain(`sync  site-a/hello [${a.deliveryId}]`);
  }, 120_000);

  it("answers 403 when a site's token signs another site's profile, and the other site keeps its article", async () => {
    const url = server!.url;
    const [victim] = (await articles(sites.b)) as { id: string }[];
    const forged = articleTrashPayload({
      profile: profileOf(sites.b),
      article: { id: victim!.id, slug: 'hello' },
      timestamp: Math.floor(Date.now() / 1000) + 60,
    });
    const answer = await send(url, signDelivery({ token: sites.a.token, payload: forged }));
    expect(answer).toMatchObject({ status: 403, body: { error: 'Profile mismatch' } });
    expect(await articles(sites.b)).toHaveLength(1);
    // A token no site has is a 401; nothing printed ever holds a token.
    expect((await send(url, signDelivery({ token: newToken(), payload: testPayload() }))).status).toBe(401);
    const output = server!.output();
    for (const site of [sites.a, sites.b]) expect(output).not.toContain(site.token);
  });

  it("passes probe with any site's token, and probe --writes with a site of the probe's profile", async () => {
    const url = server!.url;
    const readOnly = await probeEndpoint(url, { token: sites.a.token });
    expect(readOnly.rows.filter((row) => row.result === 'fail')).toEqual([]);
    await expectProbePasses(url, sites.probe.token);
    expect(server!.output()).not.toContain(sites.probe.token);
  }, 120_000);

  it('rotates a token with the admin script: both accepted, then only the new one after finish-rotation', async () => {
    // PGlite allows one process: while the server runs, the admin script says so and changes nothing.
    const rotated = newToken();
    const refused = await admin(['rotate', sites.a.id], rotated);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('PGlite allows one process');
    expect(refused.output).toContain('DATABASE_URL');
    await stop();

    const rotate = await admin(['rotate', sites.a.id], rotated);
    expect(rotate.code).toBe(0);
    expect(rotate.output).not.toContain(rotated);
    const sync = (token: string) =>
      send(server!.url, signDelivery({ token, payload: articleSyncPayload({ profile: profileOf(sites.a) }) }));
    await start();
    expect((await sync(sites.a.token)).status).toBe(200);
    expect((await sync(rotated)).status).toBe(200);
    expect((await admin(['list'])).code).not.toBe(0);
    await stop();

    const finish = await admin(['finish-rotation', sites.a.id]);
    expect(finish.output).toContain('accepts only its new token');
    await start();
    expect(await sync(sites.a.token)).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
    expect((await sync(rotated)).status).toBe(200);
    // Site B never noticed.
    expect((await send(server!.url, signDelivery({ token: sites.b.token, payload: testPayload() }))).status).toBe(200);
  }, 300_000);
});

describe('examples/multi-site: npm run dev', () => {
  it('starts the same server in watch mode', async () => {
    const dev = await startStarter(
      starter.dir,
      { ...env(), DATA_DIR: join(outside, 'dev') },
      { ...STARTUP, command: ['npm', 'run', 'dev'] },
    );
    onTestFinished(() => dev.stop());
    expect(dev.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    // No site in this database yet: every token is unknown.
    expect((await send(dev.url, signDelivery({ token: newToken(), payload: testPayload() }))).status).toBe(401);
  }, 180_000);
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
    const live = { DATABASE_URL: databaseUrl, DATA_DIR: join(outside, 'unused'), ...more };
    const running = await startStarter(starter.dir, { ...env(), ...live }, STARTUP);
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
