import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

/** The bindings this Worker reads; set the token with `npx wrangler secret put WEBHOOK_TOKEN`. */
interface Env {
  WEBHOOK_TOKEN?: string;
}

type Handler = (request: Request) => Promise<Response>;

// Bindings arrive with each request, so the receiver is built on the first one and kept for
// the isolate's life (its dedup memory lives as long as the isolate does).
let cached: { token: string; handle: Handler } | undefined;

function webhookFor(env: Env): Handler {
  const token = env.WEBHOOK_TOKEN;
  if (!token)
    throw new Error(
      'WEBHOOK_TOKEN is not bound. Run `npx wrangler secret put WEBHOOK_TOKEN` (or put it in .dev.vars for `wrangler dev`).',
    );
  if (cached?.token !== token) {
    const handle = webhookHandler(createReceiver({ token }), {
      'article.sync': ({ article, profile }) => {
        console.log(`sync ${article.slug} (${article.status})`);
        // Tell the service where the article now lives; it shows this link in its dashboard.
        return { publishedUrl: `https://${profile.domain}/blog/${article.slug}` };
      },
      'article.trash': ({ article }) => {
        console.log(`trash ${article.slug}`);
      },
      test: () => {
        console.log('test delivery received: the connection works');
      },
    });
    cached = { token, handle };
  }
  return cached.handle;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    if (new URL(request.url).pathname !== '/webhook') return new Response('Not found', { status: 404 });
    return webhookFor(env)(request);
  },
};
