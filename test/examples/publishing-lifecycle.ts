import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SyncArticle } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, deliver } from 'webhook-cms-receiver/testing';
import { expectCacheable } from './publishing-cache.js';

/** A running publishing starter, as the lifecycle sees it. */
export interface PublishingSite {
  /** The webhook endpoint. */
  webhook: string;
  /** Where the site answers over HTTP (`http://127.0.0.1:<port>`). */
  site: string;
  /** The public URL the starter was given or defaulted to: the base of `published_url` and canonical links. */
  publicUrl: string;
  token: string;
  /**
   * Queue mode (the bullmq-worker example): the receiver answers `{ ok: true, queued: true }`
   * and a worker applies the delivery later; `settle` resolves once the workers are done.
   */
  queued?: { settle(): Promise<void> };
}

/** One page fetched without following redirects. */
export interface Page {
  status: number;
  location: string | null;
  text: string;
  cacheControl: string | null;
}

/**
 * GETs `path` on the site without following redirects.
 *
 * @example
 * ```ts
 * expect((await getPage(site, '/articles/old')).location).toBe('/articles/new');
 * ```
 */
export async function getPage(target: Pick<PublishingSite, 'site'>, path: string): Promise<Page> {
  const response = await fetch(`${target.site}${path}`, { redirect: 'manual' });
  return {
    status: response.status,
    location: response.headers.get('location'),
    text: await response.text(),
    cacheControl: response.headers.get('cache-control'),
  };
}

/** A path relative to the site, from a `Location` that may be absolute. */
const pathOf = (location: string | null) => (location === null ? null : new URL(location, 'http://x').pathname);

/** Waits, polling the site, until `path` answers `status` (a schedule coming due); fails after `timeoutMs`. */
async function until(target: PublishingSite, path: string, status: number, timeoutMs: number): Promise<Page> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await getPage(target, path);
    if (page.status === status || Date.now() > deadline) return page;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const lastmodOf = (sitemap: string, loc: string) =>
  new RegExp(`<loc>${loc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</loc><lastmod>([^<]+)</lastmod>`).exec(sitemap)?.[1];

/**
 * Plays an article's life through real signed HTTP deliveries, in envelope-timestamp order (the
 * starters use `ordering: true`), and checks what a visitor and a search engine see after each:
 * a draft stays private (404, no `published_url`); publishing shows the page with its title,
 * meta description, canonical link, featured image, dates and sanitized HTML, and lists it in
 * sitemap.xml and the RSS feed; a rename answers the old slug 301 to the new one; a late older
 * sync is stale and changes nothing; unpublishing answers 404 (old slug too) and keeps the
 * sitemap `lastmod` when republished unchanged; a schedule in the future stays private until it
 * comes due; a trash answers 410 on every slug, and so does an archived article.
 *
 * @example
 * ```ts
 * await publishingLifecycle({ webhook: server.url, site, publicUrl: site, token });
 * ```
 */
export async function publishingLifecycle(target: PublishingSite): Promise<void> {
  const { token, publicUrl } = target;
  // What the receiver answers: in queue mode only that it queued the delivery.
  const ack = (body: object) => (target.queued ? { ok: true, queued: true } : body);
  const urlOf = (url: string) => (target.queued ? undefined : url);
  const send = async (options: Parameters<typeof deliver>[1]) => {
    const result = await deliver(target.webhook, options);
    await target.queued?.settle();
    return result;
  };
  const id = randomUUID();
  const first = `life-${id.slice(0, 8)}`;
  const renamed = `${first}-renamed`;
  const base = Math.floor(Date.now() / 1000) - 200;
  let step = 0;
  const article = (fields: Partial<SyncArticle>) => ({
    id,
    slug: first,
    title: 'Lifecycle: "tips" & <tricks>',
    meta_description: 'What a visitor and a search engine see at each step.',
    featured_image_url: 'https://cdn.example.com/images/lifecycle.png',
    content_html:
      '<h2>Intro</h2><p onclick="steal()">Hello<script>steal()</script></p><a href="javascript:steal()">x</a>',
    status: 'published' as const,
    published_at: '2026-01-02T09:00:00Z',
    scheduled_at: null,
    ...fields,
  });
  const sync = async (fields: Partial<SyncArticle>, timestamp = base + ++step) =>
    (
      await send({
        token,
        payload: articleSyncPayload({ timestamp, article: article(fields) }),
        maxAttempts: 1,
      })
    ).attempts[0]!;
  const published = (slug: string) => `${publicUrl}/articles/${slug}`;
  const sitemap = async () => (await getPage(target, '/sitemap.xml')).text;
  const feed = async () => (await getPage(target, '/feed.xml')).text;

  // Draft: stored, private, no published_url.
  expect(await sync({ status: 'draft', published_at: null })).toMatchObject({ status: 200, body: { ok: true } });
  expect((await sync({ status: 'review', published_at: null })).body).toEqual(ack({ ok: true }));
  expect((await getPage(target, `/articles/${first}`)).status).toBe(404);
  expect(await sitemap()).not.toContain(first);

  // Published: the page, the sitemap and the feed.
  expect((await sync({})).body).toEqual(ack({ ok: true, published_url: published(first) }));
  const page = await getPage(target, `/articles/${first}`);
  expect(page.status).toBe(200);
  // A CDN keeps a public page only as long as a takedown may take; the other answers no longer.
  expectCacheable(page, page.cacheControl);
  for (const listing of ['/', '/sitemap.xml', '/feed.xml'])
    expectCacheable(await getPage(target, listing), page.cacheControl);
  expect(page.text).toMatch(/<title>Lifecycle: (&quot;|&#34;|")tips(&quot;|&#34;|") &amp; &lt;tricks&gt;<\/title>/);
  expect(page.text).toMatch(/<meta name="description" content="What a visitor and a search engine see at each step\."/);
  expect(page.text).toContain(`<link rel="canonical" href="${published(first)}"`);
  expect(page.text).toMatch(/<img[^>]+src="https:\/\/cdn\.example\.com\/images\/lifecycle\.png"/);
  // React writes the attribute as dateTime; HTML attribute names are case-insensitive.
  expect(page.text).toMatch(/datetime="2026-01-02T09:00:00Z"/i);
  expect(page.text).toContain('Hello');
  expect(page.text).not.toMatch(/steal\(\)|onclick|<script>steal/);
  const listed = await sitemap();
  expect(listed).toContain(`<loc>${published(first)}</loc>`);
  // Stamped when the content was first seen (the draft): publishing changes no content, so no new date.
  const publishedLastmod = lastmodOf(listed, published(first));
  expect(Date.parse(publishedLastmod ?? '')).toBeLessThanOrEqual(Date.now());
  expect(await feed()).toContain(`<link>${published(first)}</link>`);

  // Renamed: one hop from the old slug to the new one.
  expect((await sync({ slug: renamed })).body).toEqual(ack({ ok: true, published_url: published(renamed) }));
  const moved = await getPage(target, `/articles/${first}`);
  expect([moved.status, pathOf(moved.location)]).toEqual([301, `/articles/${renamed}`]);
  expectCacheable(moved, page.cacheControl);
  expect((await getPage(target, `/articles/${renamed}`)).status).toBe(200);
  expect(await sitemap()).not.toContain(`<loc>${published(first)}</loc>`);

  // Updated in place: the page shows the new text at once (a cached page is revalidated).
  expect((await sync({ slug: renamed, title: 'Lifecycle, updated' })).body).toMatchObject({ ok: true });
  expect((await getPage(target, `/articles/${renamed}`)).text).toContain('<title>Lifecycle, updated</title>');
  const renamedLastmod = lastmodOf(await sitemap(), published(renamed));
  expect(Date.parse(renamedLastmod ?? '')).toBeGreaterThan(Date.parse(publishedLastmod ?? ''));

  // A retry of an older sync arriving late is stale: it must not bring the old slug back.
  expect((await sync({}, base + 4)).body).toEqual(ack({ ok: true, stale: true }));
  expect((await getPage(target, `/articles/${first}`)).status).toBe(301);

  // Unpublished (back in review): 404 on both slugs, gone from the sitemap and the feed.
  expect((await sync({ slug: renamed, title: 'Lifecycle, updated', status: 'review' })).body).toEqual(
    ack({ ok: true }),
  );
  const unpublished = await getPage(target, `/articles/${renamed}`);
  expect(unpublished.status).toBe(404);
  expectCacheable(unpublished, page.cacheControl);
  expect((await getPage(target, `/articles/${first}`)).status).toBe(404);
  expect(await sitemap()).not.toContain(renamed);
  expect(await feed()).not.toContain(renamed);

  // Republished unchanged: lastmod stays, because the content did not change.
  expect((await sync({ slug: renamed, title: 'Lifecycle, updated' })).body).toEqual(
    ack({ ok: true, published_url: published(renamed) }),
  );
  expect(lastmodOf(await sitemap(), published(renamed))).toBe(renamedLastmod);

  // Scheduled a few seconds ahead: private, no published_url, then public once due (no new delivery).
  const due = new Date(Date.now() + 3_000).toISOString();
  expect((await sync({ slug: renamed, title: 'Lifecycle, updated', scheduled_at: due })).body).toEqual(
    ack({ ok: true }),
  );
  expect((await getPage(target, `/articles/${renamed}`)).status).toBe(404);
  expect((await until(target, `/articles/${renamed}`, 200, 15_000)).status).toBe(200);
  expect(await sitemap()).toContain(`<loc>${published(renamed)}</loc>`);

  // Trashed: 410 on the current and the old slug, gone from the sitemap.
  const trash = articleTrashPayload({ timestamp: base + ++step, article: { id, slug: renamed } });
  expect((await send({ token, payload: trash, maxAttempts: 1 })).attempts[0]?.body).toEqual(ack({ ok: true }));
  const trashed = await getPage(target, `/articles/${renamed}`);
  expect(trashed.status).toBe(410);
  expectCacheable(trashed, page.cacheControl);
  expect((await getPage(target, `/articles/${first}`)).status).toBe(410);
  expect(await sitemap()).not.toContain(renamed);

  // Archived: gone as well.
  const archivedId = randomUUID();
  const archivedSlug = `archived-${archivedId.slice(0, 8)}`;
  const archive = (status: 'published' | 'archived', timestamp: number) =>
    send({
      token,
      payload: articleSyncPayload({ timestamp, article: { id: archivedId, slug: archivedSlug, status } }),
      maxAttempts: 1,
    });
  expect((await archive('published', base + 1)).publishedUrl).toBe(urlOf(published(archivedSlug)));
  expect((await archive('archived', base + 2)).publishedUrl).toBeUndefined();
  expect((await getPage(target, `/articles/${archivedSlug}`)).status).toBe(410);

  // Unpublished with HTML no renderer takes (390 nested tables overflowed the sanitizer's
  // stack): the takedown never depends on rendering, so the page goes at once.
  const deepId = randomUUID();
  const deepSlug = `deep-${deepId.slice(0, 8)}`;
  const deep = `${'<table><tr><td>'.repeat(390)}deep text${'</td></tr></table>'.repeat(390)}`;
  const deepSync = (fields: Partial<SyncArticle>, timestamp: number) =>
    send({
      token,
      payload: articleSyncPayload({ timestamp, article: { id: deepId, slug: deepSlug, ...fields } }),
      maxAttempts: 1,
    });
  expect((await deepSync({ status: 'published', content_html: '<p>fine</p>' }, base + 1)).publishedUrl).toBe(
    urlOf(published(deepSlug)),
  );
  expect((await getPage(target, `/articles/${deepSlug}`)).status).toBe(200);
  expect((await deepSync({ status: 'draft', content_html: deep }, base + 2)).attempts[0]).toMatchObject({
    status: 200,
  });
  expect((await getPage(target, `/articles/${deepSlug}`)).status).toBe(404);
  // And published with it: shown, its text kept.
  expect((await deepSync({ status: 'published', content_html: deep }, base + 3)).publishedUrl).toBe(
    urlOf(published(deepSlug)),
  );
  expect((await getPage(target, `/articles/${deepSlug}`)).text).toContain('deep text');

  // Never seen: 404.
  expect((await getPage(target, `/articles/never-${id}`)).status).toBe(404);
}
