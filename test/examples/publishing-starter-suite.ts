import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleSyncPayload, deliver, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { describeWithChromium, launchChromium, renderPage } from '../helpers/chromium.js';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { freePort } from './next-app.js';
import { publishingLifecycle } from './publishing-lifecycle.js';
import { expectInstalledFromTarball, expectProbePasses, expectRefusals } from './starter-checks.js';

/** How a framework starter is started and when it is ready. */
export interface PublishingStarter {
  /** The folder under examples/. */
  name: string;
  /** The framework, for test names. */
  framework: string;
  /** Printed once the server answers requests (after `npm start` built it). */
  ready: RegExp | string;
  /**
   * Next.js: article pages are cached and refreshed by `revalidatePath`; the suite then checks
   * that the build made the route ISR (●), that a second visit is a cache hit, and that a
   * delivery refreshes the cached page.
   */
  cachedPages?: boolean;
}

/**
 * The tests every publishing starter on a framework passes: copied out of the repository, its
 * framework installed from the registry and the package from the packed tarball, started with
 * its one command (`npm start`: build, then serve) on HOST and PORT with PGlite in DATA_DIR and
 * no PUBLIC_URL; then the article lifecycle over real HTTP deliveries and the published page
 * in Debian's Chromium.
 *
 * @example
 * ```ts
 * publishingStarterSuite({ name: 'astro-blog', framework: 'Astro', ready: 'Server listening' });
 * ```
 */
export function publishingStarterSuite({ name, framework, ready, cachedPages }: PublishingStarter): void {
  const token = `whk_${randomUUID().replaceAll('-', '')}`;
  let starter: CopiedStarter;
  let server: RunningStarter;
  let outside = '';
  let site = '';
  const webhook = () => `${site}/webhook`;

  beforeAll(async () => {
    starter = await copyStarter(name);
    outside = await mkdtemp(join(tmpdir(), `${name}-`));
    const port = String(await freePort());
    site = `http://127.0.0.1:${port}`;
    const env = {
      WEBHOOK_TOKEN: token,
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: join(outside, 'data'),
      NEXT_TELEMETRY_DISABLED: '1',
      ASTRO_TELEMETRY_DISABLED: '1',
    };
    server = await startStarter(starter.dir, env, { timeoutMs: 300_000 });
    await server.waitFor(ready, 300_000);
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    await starter?.remove();
    await rm(outside, { recursive: true, force: true });
  });

  describe(`examples/${name}, copied out of the repository, on ${framework}`, () => {
    it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
      await expectInstalledFromTarball(starter);
    });

    it('`npm start` builds, then serves on HOST and PORT; the webhook answers only POST', async () => {
      expect(server.output()).toContain(`Webhook endpoint: ${webhook()}`);
      expect((await send(webhook(), { method: 'GET' })).status).toBe(405);
    });

    it('acknowledges the dashboard Test Connection and refuses bad deliveries, never printing the token', async () => {
      const answer = await send(webhook(), signDelivery({ token, payload: testPayload() }));
      expect(answer).toMatchObject({ status: 200, body: { ok: true } });
      await expectRefusals(webhook(), token);
      await server.waitFor('Test Connection received');
      expect(server.output()).not.toContain(token);
    });

    it('plays the article lifecycle over HTTP: draft, publish, rename, stale retry, unpublish, schedule, trash, archive', async () => {
      await publishingLifecycle({ webhook: webhook(), site, publicUrl: site, token });
      // Articles went to PGlite in DATA_DIR.
      expect(await readdir(join(outside, 'data'))).toContain('PG_VERSION');
    }, 90_000);

    it('answers a redelivery of the same id as a duplicate', async () => {
      const payload = articleSyncPayload({ article: { slug: `once-${randomUUID().slice(0, 8)}` } });
      const first = await deliver(webhook(), { token, payload, maxAttempts: 1 });
      const again = await deliver(webhook(), { token, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
      expect(again.summary).toMatchObject({ ok: true, duplicate: true, publishedUrl: first.publishedUrl });
    });

    it.runIf(cachedPages)(
      'serves an article page from the cache, and a delivery refreshes it (revalidatePath)',
      async () => {
        expect(server.output()).toMatch(/● \/articles\/\[slug\]/);
        const payload = (title: string, timestamp: number) =>
          articleSyncPayload({ timestamp, article: { id, slug, title } });
        const id = randomUUID();
        const slug = `cached-${id.slice(0, 8)}`;
        const now = Math.floor(Date.now() / 1000);
        const page = () => fetch(`${site}/articles/${slug}`);
        await deliver(webhook(), { token, payload: payload('First title', now - 2), maxAttempts: 1 });
        expect(await (await page()).text()).toContain('<title>First title</title>');
        const again = await page();
        expect(again.headers.get('x-nextjs-cache')).toBe('HIT');
        expect(await again.text()).toContain('<title>First title</title>');
        await deliver(webhook(), { token, payload: payload('Second title', now - 1), maxAttempts: 1 });
        expect(await (await page()).text()).toContain('<title>Second title</title>');
      },
    );

    it('passes probe --writes, the check users run against their own endpoint', async () => {
      await expectProbePasses(webhook(), token);
    }, 60_000);

    it('`npm run serve` without WEBHOOK_TOKEN fails with a message naming it', async () => {
      const { code, output } = await runStarter(
        starter.dir,
        { WEBHOOK_TOKEN: '' },
        { command: ['npm', 'run', 'serve'] },
      );
      expect(code).not.toBe(0);
      expect(output).toContain('WEBHOOK_TOKEN is not set');
    });
  });

  describeWithChromium(`examples/${name}: the published page in Chromium`, () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    }, 60_000);
    afterAll(() => browser?.close());

    it('renders the title, meta description, canonical link and heading, and runs no script of the article', async () => {
      const slug = `in-chromium-${randomUUID().slice(0, 8)}`;
      const title = `Rendered by ${framework}`;
      const payload = articleSyncPayload({
        article: {
          slug,
          title,
          meta_description: 'The description a search result shows.',
          content_html: '<p>Body</p><img src="x" onerror="window.__stolen=1"><script>window.__stolen=2</script>',
        },
      });
      const { publishedUrl } = await deliver(webhook(), { token, payload, maxAttempts: 1 });
      expect(publishedUrl).toBe(`${site}/articles/${slug}`);
      expect(await renderPage(browser, publishedUrl!)).toEqual({
        status: 200,
        title,
        description: 'The description a search result shows.',
        canonical: publishedUrl,
        heading: title,
        scriptRan: false,
      });
    }, 60_000);
  });
}
