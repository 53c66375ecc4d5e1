import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  probeEndpoint,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import type { RunningStarter } from '../helpers/starter-process.js';
import { copyMultiSite, type MultiSiteCopy, newToken, profileOf, type Site } from './multi-site-starter.js';
import { expectInstalledFromTarball, expectProbePasses } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, run as its README says:
// sites added with `node admin.mjs`, the endpoint started with `npm start` on PGlite in DATA_DIR.
// PGlite is one process's database, so the admin commands run while the server is stopped.
// With DATABASE_URL: multi-site-postgres.test.ts.
const sites = {
  a: { id: 'site-a', profile: 'prof-a', domain: 'a.example.com', token: newToken() },
  b: { id: 'site-b', profile: 'prof-b', domain: 'Blog.B.example.org', token: newToken() },
  // The profile `probe --writes` names in its articles (the /testing fixtures' default).
  probe: { id: 'site-probe', profile: 'prof_42', domain: 'blog.example.com', token: newToken() },
} satisfies Record<string, Site>;

let copy: MultiSiteCopy;
let server: RunningStarter | undefined;
const admin: MultiSiteCopy['admin'] = (...args) => copy.admin(...args);
async function start() {
  server = await copy.start();
  return server;
}
async function stop() {
  await server?.stop();
  server = undefined;
}
const articles = async (site: Site) =>
  (await fetch(`${server!.url.replace(/\/webhook$/, '')}/sites/${site.id}/articles`)).json();

beforeAll(async () => {
  copy = await copyMultiSite();
}, 180_000);
afterAll(async () => {
  await stop();
  await copy?.remove();
});

describe('examples/multi-site, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(copy.starter);
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

  it('shows the ledger behind the admin login, and recovers what an unplanned regeneration refused', async () => {
    const PASSWORD = 'correct horse battery staple';
    await stop();
    server = await copy.start({ ADMIN_PASSWORD: PASSWORD });
    const base = server.url.replace(/\/webhook$/, '');
    const page = `${base}/admin/deliveries`;
    const anonymous = await fetch(page);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    const basic = (password: string) => ({ authorization: `Basic ${btoa(`admin:${password}`)}` });
    expect((await fetch(page, { headers: basic('wrong') })).status).toBe(401);

    // Site B's token is regenerated with no rotation window: its delivery is refused, and kept.
    const regenerated = newToken();
    const payload = articleSyncPayload({
      profile: profileOf(sites.b),
      article: { slug: 'kept-while-wrong', title: 'Kept', status: 'published' },
    });
    expect((await send(server.url, signDelivery({ token: regenerated, payload }))).status).toBe(401);
    let html = '';
    for (let tries = 0; tries < 50 && !html.includes('kept-while-wrong'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const shown = await fetch(page, { headers: basic(PASSWORD) });
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
      html = await shown.text();
    }
    expect(html).toContain('kept-while-wrong');
    expect(html).not.toContain(regenerated);

    await stop();
    expect((await admin(['rotate', sites.b.id], regenerated)).code).toBe(0);
    server = await copy.start({ ADMIN_PASSWORD: PASSWORD });
    const restarted = server.url.replace(/\/webhook$/, '');
    const recover = await fetch(`${restarted}/admin/deliveries?action=recover`, {
      method: 'POST',
      headers: { ...basic(PASSWORD), origin: restarted },
      redirect: 'manual',
    });
    expect(recover.status).toBe(303);
    expect(recover.headers.get('location')).toContain('recovered=1');
    expect(await articles(sites.b)).toContainEqual({
      id: payload.article.id,
      slug: 'kept-while-wrong',
      title: 'Kept',
      status: 'published',
    });
  }, 300_000);
});

describe('examples/multi-site: npm run dev', () => {
  it('starts the same server in watch mode', async () => {
    const dev = await copy.start({ DATA_DIR: copy.dir('dev') }, ['npm', 'run', 'dev']);
    onTestFinished(() => dev.stop());
    expect(dev.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    // No site in this database yet: every token is unknown.
    expect((await send(dev.url, signDelivery({ token: newToken(), payload: testPayload() }))).status).toBe(401);
  }, 180_000);
});
