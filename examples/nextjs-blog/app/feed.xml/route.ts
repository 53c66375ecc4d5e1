import { publicUrl, site, siteTitle } from '../../lib/site';
import { CACHE_CONTROL, rssXml } from '../../lib/site-feeds.mjs';

// Read at each request: an article scheduled for later must appear when it is due.
export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  return new Response(rssXml(await (await site()).publicArticles(), { publicUrl: publicUrl(), title: siteTitle }), {
    headers: { 'Content-Type': 'application/rss+xml; charset=utf-8', 'Cache-Control': CACHE_CONTROL },
  });
}
