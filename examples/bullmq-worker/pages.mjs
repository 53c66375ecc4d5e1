import { articleUrl, escapeXml, imageUrl } from './site-feeds.mjs';

/**
 * The page of a public article: title, meta description, canonical link, Open Graph tags,
 * featured image, publication and last-modified dates, and the article's sanitized HTML.
 *
 * @example
 * res.send(articlePage(answer.article, { publicUrl: 'https://blog.example.com', siteTitle: 'My blog' }));
 */
export function articlePage(article, { publicUrl, siteTitle }) {
  const canonical = articleUrl(publicUrl, article.slug);
  const image = imageUrl(article.featured_image_url);
  const head = [
    `<title>${escapeXml(article.title)}</title>`,
    `<meta name="description" content="${escapeXml(article.meta_description)}">`,
    `<link rel="canonical" href="${escapeXml(canonical)}">`,
    `<meta property="og:type" content="article">`,
    `<meta property="og:title" content="${escapeXml(article.title)}">`,
    `<meta property="og:description" content="${escapeXml(article.meta_description)}">`,
    `<meta property="og:url" content="${escapeXml(canonical)}">`,
    image ? `<meta property="og:image" content="${escapeXml(image)}">` : '',
    article.public_at ? `<meta property="article:published_time" content="${escapeXml(article.public_at)}">` : '',
    article.lastmod ? `<meta property="article:modified_time" content="${escapeXml(article.lastmod)}">` : '',
  ];
  const body = [
    `<p><a href="/">${escapeXml(siteTitle)}</a></p>`,
    '<article>',
    `<h1>${escapeXml(article.title)}</h1>`,
    `<p class="dates">${dates(article)}</p>`,
    image ? `<img class="featured" src="${escapeXml(image)}" alt="${escapeXml(article.title)}">` : '',
    // Sanitized when stored (sanitizeHtml of webhook-cms-receiver/publish): no scripts or handlers.
    `<div class="content">${article.html}</div>`,
    '</article>',
  ];
  return layout(head, body);
}

/**
 * The home page: public articles, newest first.
 *
 * @example
 * res.send(indexPage(await site.publicArticles(), { siteTitle: 'My blog' }));
 */
export function indexPage(articles, { siteTitle }) {
  const items = articles.map(
    (article) =>
      `<li><a href="/articles/${encodeURIComponent(article.slug)}">${escapeXml(article.title)}</a> ${dates(article)}</li>`,
  );
  return layout(
    [`<title>${escapeXml(siteTitle)}</title>`],
    [`<h1>${escapeXml(siteTitle)}</h1>`, `<ul>${items.join('')}</ul>`, '<p><a href="/feed.xml">RSS</a></p>'],
  );
}

/**
 * The page of a 404 or a 410: search engines drop a 410 at once, a 404 after a while.
 *
 * @example
 * res.status(410).send(statusPage(410));
 */
export function statusPage(status) {
  const text = status === 410 ? 'This article was removed.' : 'No article here.';
  return layout([`<title>${status}</title>`, '<meta name="robots" content="noindex">'], [`<h1>${text}</h1>`]);
}

function dates(article) {
  const published = article.public_at
    ? `Published <time datetime="${escapeXml(article.public_at)}">${escapeXml(article.public_at.slice(0, 10))}</time>`
    : '';
  const updated = article.lastmod
    ? ` · updated <time datetime="${escapeXml(article.lastmod)}">${escapeXml(article.lastmod.slice(0, 10))}</time>`
    : '';
  return published + updated;
}

function layout(head, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head.filter(Boolean).join('\n')}
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
</head>
<body>
${body.filter(Boolean).join('\n')}
</body>
</html>
`;
}
