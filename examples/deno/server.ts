import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { isPublic } from 'webhook-cms-receiver/publish';

const token = Deno.env.get('WEBHOOK_TOKEN');
if (!token) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token from Profile Settings → CMS Integration and run: WEBHOOK_TOKEN=... deno task start',
  );
  Deno.exit(1);
}

// One receiver for the life of the process: it holds the dedup memory that makes redeliveries harmless.
const receiver = createReceiver({ token });

const webhook = webhookHandler(receiver, {
  'article.sync': ({ article, profile }) => {
    console.log(`sync ${article.slug} (${article.status})`);
    // Every status change arrives, drafts included: link only what is public now (a scheduled
    // article is not yet). Here you would remove a non-public article from your site.
    if (!isPublic(article)) return;
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

Deno.serve(
  {
    // Loopback by default so a starter is never exposed by accident; set HOST=0.0.0.0 to publish it.
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? 3000),
    onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}/webhook`),
  },
  (request) =>
    new URL(request.url).pathname === '/webhook' ? webhook(request) : new Response('Not found', { status: 404 }),
);
