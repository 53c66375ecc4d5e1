import Fastify from 'fastify';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookPlugin } from 'webhook-cms-receiver/fastify';
import { isPublic } from 'webhook-cms-receiver/publish';

/**
 * A Fastify app with the webhook at `POST /webhook` and an ordinary JSON route at `POST /echo`.
 * The plugin keeps the webhook's body raw in its own scope, so Fastify's JSON parser still
 * works on `/echo` and every route you add. Replace the handlers with your publishing code.
 *
 * @example
 * const app = await createApp({ token: process.env.WEBHOOK_TOKEN, publicBaseUrl: 'https://blog.example.com' });
 */
export async function createApp({ token, publicBaseUrl, log = console.log }) {
  const receiver = createReceiver({ token });
  const base = publicBaseUrl.replace(/\/+$/, '');
  const app = Fastify();
  await app.register(webhookPlugin, {
    receiver,
    path: '/webhook',
    handlers: {
      'article.sync': ({ article, deliveryId }) => {
        log(`sync  ${article.slug} (${article.status}) "${article.title}" [${deliveryId}]`);
        // Every status change arrives, drafts included: link only what is public now (a
        // scheduled article is not yet). Replace with your code removing a non-public article.
        if (!isPublic(article)) return;
        return { publishedUrl: `${base}/${encodeURIComponent(article.slug)}` };
      },
      'article.trash': ({ article, deliveryId }) => log(`trash ${article.slug} [${deliveryId}]`),
      test: () => log('test  Test Connection received'),
      unknown: ({ name }) => log(`skip  unknown event ${name}`),
    },
  });
  // An ordinary route: Fastify parses its JSON body as usual.
  app.post('/echo', async (request) => ({ received: request.body }));
  return app;
}

/**
 * Listens on `host:port`; `port: 0` picks a free port.
 *
 * @example
 * const { url, close } = await startServer({ token, port: 3000, publicBaseUrl: 'https://blog.example.com' });
 */
export async function startServer({ port = 3000, host = '127.0.0.1', ...options }) {
  const app = await createApp(options);
  await app.listen({ port, host });
  const { port: bound } = app.server.address();
  return { url: `http://${host}:${bound}`, close: () => app.close() };
}
