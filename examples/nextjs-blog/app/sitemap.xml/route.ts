import { publicUrl, site } from '../../lib/site';
import { CACHE_CONTROL, sitemapXml } from '../../lib/site-feeds.mjs';

// Read at each request: an article scheduled for later must appear when it is due.
export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  return new Response(sitemapXml(await (await site()).publicArticles(), publicUrl()), {
    headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': CACHE_CONTROL },
  });
}
