import type { APIRoute } from 'astro';
import { publicUrl, site } from '../lib/site';
import { CACHE_CONTROL, sitemapXml } from '../lib/site-feeds.mjs';

export const GET: APIRoute = async () =>
  new Response(sitemapXml(await (await site()).publicArticles(), publicUrl()), {
    headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': CACHE_CONTROL },
  });
