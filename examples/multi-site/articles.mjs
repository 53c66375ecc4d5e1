// Each site's articles, keyed by (site, article id): two sites may send the same article id
// and never overwrite each other, because the site comes from the token (event.tenant.id),
// never from the body.

/**
 * Stores an `article.sync` for the site the delivery came for, or removes the article on
 * `article.trash`.
 *
 * @example
 * 'article.sync': (event) => saveDelivery(db, event)
 */
export async function saveDelivery(db, event) {
  const site = event.tenant.id;
  const { article } = event;
  if (event.type === 'article.trash') {
    await db.query('DELETE FROM site_articles WHERE site_id = $1 AND article_id = $2', [site, article.id]);
    return;
  }
  await db.query(
    `INSERT INTO site_articles (site_id, article_id, slug, title, status, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (site_id, article_id) DO UPDATE SET slug = $3, title = $4, status = $5, updated_at = now()`,
    [site, article.id, article.slug, article.title, article.status],
  );
}

/** A site's articles, newest change first: what `GET /sites/<id>/articles` answers. */
export function articlesOf(db, siteId) {
  return db.query(
    'SELECT article_id AS id, slug, title, status FROM site_articles WHERE site_id = $1 ORDER BY updated_at DESC, slug',
    [siteId],
  );
}
