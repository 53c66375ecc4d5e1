// main.ts on Deno Deploy (`deno add npm:webhook-cms-receiver`), self-contained
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

const webhook = webhookHandler(createReceiver({ token: Deno.env.get('WEBHOOK_TOKEN') ?? '' }), {
  'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
});
Deno.serve((request) =>
  new URL(request.url).pathname === '/webhook' ? webhook(request) : new Response('Not found', { status: 404 }),
);
