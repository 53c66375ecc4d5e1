import type { APIRoute } from 'astro';
import { publicUrl, site, siteTitle } from '../lib/site';
import { CACHE_CONTROL, rssXml } from '../lib/site-feeds.mjs';

export const GET: APIRoute = async () =>
  new Response(rssXml(await (await site()).publicArticles(), { publicUrl: publicUrl(), title: siteTitle }), {
    headers: { 'Content-Type': 'application/rss+xml; charset=utf-8', 'Cache-Control': CACHE_CONTROL },
  });
