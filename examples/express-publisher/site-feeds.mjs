/**
 * Escapes text for an HTML or XML text node or a double-quoted attribute.
 *
 * @example
 * escapeXml('Tips & "tricks"'); // 'Tips &amp; &quot;tricks&quot;'
 */
export function escapeXml(text) {
  return String(text ?? '').replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char],
  );
}

/**
 * The `Cache-Control` of every page the site answers (200, 301, 404, 410, the index, the
 * sitemap and the feed): a CDN in front may keep an answer 60 s and serve it stale for 60 s
 * more while it refetches, so a trashed or unpublished article is gone from every cache within
 * two minutes without a purge, and a renamed slug can be given to another article. Browsers
 * revalidate each time (`max-age=0`): a 301 without it would be cached by browsers for good.
 */
export const CACHE_CONTROL = 'public, max-age=0, s-maxage=60, stale-while-revalidate=60';

/**
 * The public URL of an article's page.
 *
 * @example
 * articleUrl('https://blog.example.com', 'ten-seo-tips'); // 'https://blog.example.com/articles/ten-seo-tips'
 */
export function articleUrl(publicUrl, slug) {
  return `${publicUrl}/articles/${encodeURIComponent(slug)}`;
}

/**
 * An image URL safe to put in `src`: http or https only, else null.
 *
 * @example
 * imageUrl('javascript:alert(1)'); // null
 */
export function imageUrl(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
}

/**
 * `sitemap.xml` of the public articles. `lastmod` is the instant their content last changed
 * (`nextLastmod` from the content hash), never the time of the request: search engines ignore
 * a sitemap whose dates always move.
 *
 * @example
 * res.type('application/xml').send(sitemapXml(await site.publicArticles(), 'https://blog.example.com'));
 */
export function sitemapXml(articles, publicUrl) {
  const urls = articles.map(
    (article) =>
      `  <url><loc>${escapeXml(articleUrl(publicUrl, article.slug))}</loc>${
        article.lastmod ? `<lastmod>${escapeXml(article.lastmod)}</lastmod>` : ''
      }</url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

/**
 * An RSS 2.0 feed of the public articles, newest first, with their sanitized HTML.
 *
 * @example
 * res.type('application/rss+xml').send(rssXml(await site.publicArticles(), { publicUrl, title: 'My blog' }));
 */
export function rssXml(articles, { publicUrl, title = 'Articles' }) {
  const items = articles.map((article) => {
    const link = escapeXml(articleUrl(publicUrl, article.slug));
    const date = article.public_at ? `<pubDate>${new Date(article.public_at).toUTCString()}</pubDate>` : '';
    return [
      '    <item>',
      `      <title>${escapeXml(article.title)}</title>`,
      `      <link>${link}</link>`,
      `      <guid isPermaLink="false">${escapeXml(article.id)}</guid>`,
      `      <description>${escapeXml(article.meta_description)}</description>`,
      date ? `      ${date}` : '',
      `      <content:encoded>${escapeXml(article.html)}</content:encoded>`,
      '    </item>',
    ]
      .filter(Boolean)
      .join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">',
    '  <channel>',
    `    <title>${escapeXml(title)}</title>`,
    `    <link>${escapeXml(publicUrl)}/</link>`,
    `    <description>${escapeXml(title)}</description>`,
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}
