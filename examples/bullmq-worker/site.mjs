// The site the workers publish: articles and the slug history in Redis (every worker shares
// them), pages written as static files under SITE_DIR for any static host or CDN:
//   articles/<slug>.html   the page of each public article, nothing else
//   _redirects             301 for renamed slugs, 410 for trashed or archived ones (Netlify's format)
//   index.html, sitemap.xml, feed.xml
// `npm run serve` serves the folder as such a host would (serve.mjs).
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  answerForSlug,
  classifyChange,
  emptySlugHistory,
  goesPublicAt,
  invalidDates,
  isPublic,
  loadHtmlSanitizer,
  nextLastmod,
  recordSlug,
} from 'webhook-cms-receiver/publish';
import { articlePage, indexPage, statusPage } from './pages.mjs';
import { rssXml, sitemapXml } from './site-feeds.mjs';

const fileName = (slug) => `${encodeURIComponent(slug)}.html`;

/**
 * Opens the site: `apply` for each delivery a worker runs, `rebuild` to write every file again
 * (at start-up, and when a scheduled article comes due: the service sends nothing then).
 *
 * @example
 * const site = await openSite({ redis, dir: 'site', publicUrl: 'https://blog.example.com' });
 * await site.apply(event); // in the article.sync and article.trash handlers
 */
export async function openSite({ redis, dir, publicUrl, siteTitle = 'Articles', prefix = 'site:' }) {
  await mkdir(join(dir, 'articles'), { recursive: true });
  const sanitize = await loadHtmlSanitizer();
  const keys = { articles: `${prefix}articles`, history: `${prefix}slug-history`, lock: `${prefix}lock` };
  const timers = new Map();

  // One writer at a time across workers: the history is one value, and files must follow it.
  async function locked(work) {
    const token = `${process.pid}-${Math.random()}`;
    while ((await redis.set(keys.lock, token, 'PX', 30_000, 'NX')) !== 'OK')
      await new Promise((resolve) => setTimeout(resolve, 20));
    try {
      return await work();
    } finally {
      if ((await redis.get(keys.lock)) === token) await redis.del(keys.lock);
    }
  }

  async function state() {
    const rows = await redis.hgetall(keys.articles);
    const stored = new Map(Object.entries(rows).map(([id, json]) => [id, JSON.parse(json)]));
    const history = JSON.parse((await redis.get(keys.history)) ?? 'null') ?? emptySlugHistory();
    return { stored, history };
  }

  /** Stores a delivery, then updates the files: first what comes down, then the new page. */
  async function apply(delivery) {
    return locked(async () => {
      const { stored, history } = await state();
      const before = stored.get(delivery.article.id);
      const change = classifyChange(before?.delivery ?? null, delivery);
      const stamp =
        delivery.type === 'article.sync' ? await nextLastmod(before?.stamp, delivery.article) : before?.stamp;
      const row = { delivery, stamp, html: '' };
      stored.set(delivery.article.id, row);
      recordSlug(history, delivery);
      await redis
        .multi()
        .hset(keys.articles, delivery.article.id, JSON.stringify(row))
        .set(keys.history, JSON.stringify(history))
        .exec();
      for (const { field, value } of delivery.type === 'article.sync' ? invalidDates(delivery.article) : [])
        console.warn(
          `article ${delivery.article.id} stays private: ${field} ${JSON.stringify(value)} is not an ISO 8601 date`,
        );
      // Takedown first, from the stored state alone: pages of slugs no longer public, routes, lists.
      const slugs = [change.slug, change.previousSlug].filter((slug) => slug !== null);
      const site = { stored, history };
      for (const slug of slugs) await writeSlug(site, slug, false);
      await writeLists(site);
      // Then the pages these slugs answer with now: the new one, rendered only now (a render that
      // fails leaves the takedown in place), or another article's that holds a slug again.
      if (change.isPublic) {
        row.html = render(delivery.article);
        await redis.hset(keys.articles, delivery.article.id, JSON.stringify(row));
      }
      for (const slug of slugs) await writeSlug(site, slug, true);
      schedule(delivery);
      return change;
    });
  }

  function render(article) {
    try {
      return sanitize(article.content_html);
    } catch (error) {
      console.error(`article ${article.id}: its HTML could not be rendered (${error.message}); page left empty`);
      return '';
    }
  }

  const view = (row) => {
    if (row?.delivery.type !== 'article.sync') return undefined;
    const article = row.delivery.article;
    const dates = [article.published_at, article.scheduled_at].filter(Boolean).sort();
    return { ...article, html: row.html, lastmod: row.stamp?.lastmod ?? null, public_at: dates.at(-1) ?? null };
  };

  /** Writes or removes `articles/<slug>.html` as the slug answers now (only a 200 has a file). */
  async function writeSlug({ stored, history }, slug, allowWrite) {
    const answer = await answerForSlug(history, slug, { load: (id) => view(stored.get(id)) });
    const path = join(dir, 'articles', fileName(slug));
    if (answer.status === 200 && allowWrite && answer.article.html !== undefined)
      return atomicWrite(path, articlePage(answer.article, { publicUrl, siteTitle }));
    if (answer.status !== 200) await rm(path, { force: true });
  }

  /** `_redirects` (301 and 410 lines), the index, sitemap.xml and feed.xml, from the whole state. */
  async function writeLists({ stored, history }) {
    const lines = [];
    for (const slug of Object.keys(history.slugs)) {
      const answer = await answerForSlug(history, slug, {
        load: (id) => view(stored.get(id)),
        location: (to) => `/articles/${encodeURIComponent(to)}`,
      });
      if (answer.status === 301) lines.push(`/articles/${encodeURIComponent(slug)} ${answer.location} 301`);
      if (answer.status === 410) lines.push(`/articles/${encodeURIComponent(slug)} /410.html 410`);
      if (answer.status !== 200) await rm(join(dir, 'articles', fileName(slug)), { force: true });
    }
    const now = Date.now();
    const listed = [...stored.values()].map(view).filter((article) => article && isPublic(article, { now }));
    listed.sort((a, b) => Date.parse(b.public_at ?? '') - Date.parse(a.public_at ?? '') || 0);
    await atomicWrite(join(dir, '_redirects'), `${lines.join('\n')}\n`);
    await atomicWrite(join(dir, '410.html'), statusPage(410));
    await atomicWrite(join(dir, '404.html'), statusPage(404));
    await atomicWrite(join(dir, 'index.html'), indexPage(listed, { siteTitle }));
    await atomicWrite(join(dir, 'sitemap.xml'), sitemapXml(listed, publicUrl));
    await atomicWrite(join(dir, 'feed.xml'), rssXml(listed, { publicUrl, title: siteTitle }));
  }

  /** Writes every file again: at start-up, and when a schedule comes due. */
  async function rebuild() {
    return locked(async () => {
      const site = await state();
      await writeLists(site);
      for (const slug of Object.keys(site.history.slugs)) await writeSlug(site, slug, true);
      for (const row of site.stored.values()) schedule(row.delivery);
    });
  }

  // The service sends nothing when a schedule comes due: each worker rebuilds then.
  function schedule(delivery) {
    const at = delivery.type === 'article.sync' ? goesPublicAt(delivery.article) : null;
    clearTimeout(timers.get(delivery.article.id));
    if (!at) return timers.delete(delivery.article.id);
    const wait = Math.min(at.getTime() - Date.now() + 50, 2 ** 31 - 1);
    timers.set(
      delivery.article.id,
      setTimeout(() => rebuild().catch((error) => console.error('rebuild:', error.message)), wait).unref(),
    );
  }

  const close = () => {
    for (const timer of timers.values()) clearTimeout(timer);
  };
  return { apply, rebuild, close };
}

// A visitor never reads a half-written page: write beside it, then rename over it.
async function atomicWrite(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}
