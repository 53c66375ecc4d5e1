import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
// Next.js bundles /publish whole, its sanitizer's optional peers (hast-util-*) included, so
// package.json lists them although this route only calls isPublic; without them the build fails.
import { isPublic } from 'webhook-cms-receiver/publish';

// 'nodejs' verifies with node:crypto; 'edge' works unchanged and verifies with Web Crypto.
export const runtime = 'nodejs';

type Handler = (request: Request) => Promise<Response>;

// Built on the first request rather than at import, so `next build` (which imports route
// modules) does not need the token, and then kept for the life of the server process.
let webhook: Handler | undefined;

function createWebhook(): Handler {
  const token = process.env.WEBHOOK_TOKEN;
  if (!token)
    throw new Error(
      'WEBHOOK_TOKEN is not set. Put the token from Profile Settings → CMS Integration in .env.local (never in code).',
    );
  return webhookHandler(createReceiver({ token }), {
    'article.sync': ({ article, profile }) => {
      console.log(`sync ${article.slug} (${article.status})`);
      // Every status change arrives, drafts included: publish only what is public now (a
      // scheduled article is not yet). Here you would remove a non-public article from your site.
      if (!isPublic(article)) return;
      // Here you would store the article and call revalidatePath(`/blog/${article.slug}`).
      return { publishedUrl: `https://${profile.domain}/blog/${article.slug}` };
    },
    'article.trash': ({ article }) => {
      console.log(`trash ${article.slug}`);
    },
    test: () => {
      console.log('test delivery received: the connection works');
    },
  });
}

/** POST /api/webhook: the endpoint to paste into the service's CMS Integration settings. */
export function POST(request: Request): Promise<Response> {
  webhook ??= createWebhook();
  return webhook(request);
}
