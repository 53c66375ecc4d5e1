import {
  answerForSlug,
  classifyChange,
  emptySlugHistory,
  invalidDates,
  isPublic,
  loadHtmlSanitizer,
  nextLastmod,
  recordSlug,
} from 'webhook-cms-receiver/publish';

/**
 * A public article as a page shows it: the synced article, its sanitized HTML, when its content
 * last changed and when it went public.
 *
 * @typedef {import('webhook-cms-receiver').SyncArticle & { html: string, lastmod: string | null, public_at: string | null }} ArticlePage
 */

// Articles and the slug history live in Postgres: PGlite (Postgres compiled to WebAssembly, one
// folder on disk) by default, a real server when DATABASE_URL is set. Same SQL for both.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS site_articles (
  id text PRIMARY KEY,
  delivery jsonb NOT NULL,
  html text NOT NULL DEFAULT '',
  content_hash text,
  lastmod text
);
CREATE TABLE IF NOT EXISTS site_slug_history (
  id integer PRIMARY KEY CHECK (id = 1),
  history jsonb NOT NULL
);
INSERT INTO site_slug_history (id, history) VALUES (1, '{"articles":{},"slugs":{}}') ON CONFLICT (id) DO NOTHING;
`;

/**
 * Opens the site's database (PGlite in `dataDir`, or Postgres at `databaseUrl`), creates its
 * two tables, and returns what a site needs: `apply` for each verified delivery, `answer` for
 * a request to `/articles/<slug>`, `publicArticles` for the index, sitemap and feed, and
 * `client` for the receiver's dedup store (`postgresDedupStore(site.client)`).
 *
 * @example
 * const site = await openSite({ databaseUrl: process.env.DATABASE_URL, dataDir: './data' });
 * const change = await site.apply(event); // in the article.sync and article.trash handlers
 *
 * @param {{ databaseUrl?: string, dataDir?: string }} [options]
 */
export async function openSite({ databaseUrl, dataDir = './data' } = {}) {
  const db = databaseUrl ? await openPostgres(databaseUrl) : await openPGlite(dataDir);
  await db.exec(SCHEMA);
  // Sanitized once, when stored: pages then show stored HTML without parsing it per request.
  const sanitize = await loadHtmlSanitizer();

  /**
   * Stores a delivery and says what it changed (`classifyChange`), in one transaction. What
   * takes an article off the site (unpublish, trash, archive, a rename's old slug) is written
   * first, from the delivery alone; the new HTML is rendered only for an article public after
   * this delivery, and a render that fails leaves the takedown in place (the page is stored
   * empty and the error logged), so an unpublish never waits on HTML that cannot be rendered.
   *
   * @param {import('webhook-cms-receiver/publish').ArticleDelivery} delivery
   * @returns {Promise<import('webhook-cms-receiver/publish').ArticleChange>}
   */
  async function apply(delivery) {
    const { id } = delivery.article;
    return db.transaction(async (query) => {
      // One writer at a time for the history row: two articles renamed at once must not lose a slug.
      const [{ history }] = await query('SELECT history FROM site_slug_history WHERE id = 1 FOR UPDATE');
      const [row] = await query('SELECT delivery, content_hash, lastmod FROM site_articles WHERE id = $1', [id]);
      const change = classifyChange(row?.delivery ?? null, delivery);
      const stored = row?.content_hash ? { hash: row.content_hash, lastmod: row.lastmod } : null;
      const stamp = delivery.type === 'article.sync' ? await nextLastmod(stored, delivery.article) : stored;
      // Takedown first: the delivery, its visibility and the slugs, with no HTML yet.
      // A trash keeps the last synced article's content hash, so a restore does not move lastmod.
      await query(
        `INSERT INTO site_articles (id, delivery, html, content_hash, lastmod) VALUES ($1, $2, '', $3, $4)
         ON CONFLICT (id) DO UPDATE SET delivery = $2, html = '', content_hash = $3, lastmod = $4`,
        [id, JSON.stringify(delivery), stamp?.hash ?? null, stamp?.lastmod ?? null],
      );
      await query('UPDATE site_slug_history SET history = $1 WHERE id = 1', [
        JSON.stringify(recordSlug(history ?? emptySlugHistory(), delivery)),
      ]);
      for (const { field, value } of delivery.type === 'article.sync' ? invalidDates(delivery.article) : [])
        console.warn(`Article ${id} stays private: ${field} ${JSON.stringify(value)} is not an ISO 8601 date.`);
      // Then the page, only for an article that is public after this delivery.
      if (change.isPublic) await query('UPDATE site_articles SET html = $2 WHERE id = $1', [id, render(delivery)]);
      return change;
    });
  }

  function render(delivery) {
    try {
      return sanitize(delivery.article.content_html);
    } catch (error) {
      console.error(`Article ${delivery.article.id}: its HTML could not be rendered (${error.message}); stored empty.`);
      return '';
    }
  }

  /**
   * How to answer `/articles/<slug>` now: `{ status: 200, article }`, 301 with `location`, 404 or 410.
   *
   * @param {string} slug
   * @returns {Promise<import('webhook-cms-receiver/publish').PathAnswer<ArticlePage>>}
   */
  async function answer(slug) {
    const [{ history }] = await db.query('SELECT history FROM site_slug_history WHERE id = 1');
    return answerForSlug(history, slug, {
      load: async (id) => page((await db.query('SELECT * FROM site_articles WHERE id = $1', [id]))[0]),
      location: (to) => `/articles/${encodeURIComponent(to)}`,
    });
  }

  /**
   * Every article public now, newest first: for the index, sitemap.xml and the feed.
   *
   * @returns {Promise<ArticlePage[]>}
   */
  async function publicArticles() {
    const rows = await db.query(`SELECT * FROM site_articles WHERE delivery->>'type' = 'article.sync'`);
    const now = Date.now();
    return rows
      .map(page)
      .filter((article) => isPublic(article, { now }))
      .sort((a, b) => Date.parse(b.public_at ?? '') - Date.parse(a.public_at ?? '') || 0);
  }

  return { client: db.client, apply, answer, publicArticles, close: db.close };
}

/**
 * A stored row as a page: the synced article with its sanitized HTML, lastmod and the date it went public.
 *
 * @returns {ArticlePage | undefined}
 */
function page(row) {
  if (row?.delivery.type !== 'article.sync') return undefined;
  const article = row.delivery.article;
  const dates = [article.published_at, article.scheduled_at].filter(Boolean).sort();
  return { ...article, html: row.html, lastmod: row.lastmod, public_at: dates.at(-1) ?? null };
}

async function openPGlite(dataDir) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  return {
    client: db,
    exec: (sql) => db.exec(sql),
    query: async (sql, params) => (await db.query(sql, params)).rows,
    transaction: (work) => db.transaction((tx) => work(async (sql, params) => (await tx.query(sql, params)).rows)),
    close: () => db.close(),
  };
}

async function openPostgres(connectionString) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString });
  // pg asks for this: an idle connection the server drops must not end the process.
  pool.on('error', (error) => console.error(`Postgres connection lost: ${error.message}`));
  return {
    client: pool,
    exec: (sql) => pool.query(sql),
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(async (sql, params) => (await client.query(sql, params)).rows);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
