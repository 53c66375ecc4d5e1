// main.ts on Deno Deploy (`deno add npm:webhook-cms-receiver`), self-contained
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { isPublic } from 'webhook-cms-receiver/publish';

const webhook = webhookHandler(createReceiver({ token: Deno.env.get('WEBHOOK_TOKEN') ?? '' }), {
  // Drafts arrive too: a URL only for what is public now.
  'article.sync': ({ article }) =>
    isPublic(article) ? { publishedUrl: `https://blog.example.com/${article.slug}` } : undefined,
});
Deno.serve((request) =>
  new URL(request.url).pathname === '/webhook' ? webhook(request) : new Response('Not found', { status: 404 }),
);
