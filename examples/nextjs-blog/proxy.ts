import { type NextRequest, NextResponse } from 'next/server';
import { site } from './lib/site';
import { CACHE_CONTROL } from './lib/site-feeds.mjs';

// Only article URLs pass through here.
export const config = { matcher: '/articles/:slug' };

/**
 * Answers what a page cannot: a renamed slug with a 301 to the current one (Next's redirect()
 * is a 307, permanentRedirect() a 308), a trashed or archived article with 410 Gone, and a
 * draft, an article scheduled for later or an unknown slug with 404, judged at the time of the
 * request. A public article goes on to its (cached) page.
 */
export async function proxy(request: NextRequest) {
  const slug = decoded(request.nextUrl.pathname.slice('/articles/'.length));
  const answer = slug === undefined ? ({ status: 404 } as const) : await (await site()).answer(slug);
  if (answer.status === 200) return NextResponse.next();
  // 301, 404 and 410 are cached no longer than a page (see CACHE_CONTROL): each can change.
  if (answer.status === 301) {
    const moved = NextResponse.redirect(new URL(answer.location, request.url), 301);
    moved.headers.set('Cache-Control', CACHE_CONTROL);
    return moved;
  }
  const text = answer.status === 410 ? 'This article was removed.' : 'No article here.';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${answer.status}</title><meta name="robots" content="noindex"></head><body><h1>${text}</h1></body></html>`;
  return new NextResponse(html, {
    status: answer.status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': CACHE_CONTROL },
  });
}

/** The slug as the article has it, or undefined for a malformed escape (`%E0%A4%A`), which no slug matches. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
