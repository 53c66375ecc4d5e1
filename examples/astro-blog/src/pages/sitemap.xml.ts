import type { APIRoute } from 'astro';
import { publicUrl, site } from '../lib/site';
import { sitemapXml } from '../lib/site-feeds.mjs';

export const GET: APIRoute = async () =>
  new Response(sitemapXml(await (await site()).publicArticles(), publicUrl()), {
    headers: { 'Content-Type': 'application/xml; charset=utf-8' },
  });
