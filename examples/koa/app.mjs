import Koa from 'koa';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/koa';
import { isPublic } from 'webhook-cms-receiver/publish';

/**
 * A Koa app with the webhook at `/webhook` (anything but POST gets 405 from the receiver). It
 * logs each event and answers a public article with the URL it has on your site; replace the
 * handlers with your publishing code. Mount the webhook before any body parser.
 *
 * @example
 * const app = createApp({ token: process.env.WEBHOOK_TOKEN, publicBaseUrl: 'https://blog.example.com' });
 */
export function createApp({ token, publicBaseUrl, log = console.log }) {
  const receiver = createReceiver({ token });
  const base = publicBaseUrl.replace(/\/+$/, '');
  const webhook = webhookHandler(receiver, {
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
  });
  const app = new Koa();
  app.use((ctx, next) => (ctx.path === '/webhook' ? webhook(ctx, next) : next()));
  return app;
}

/**
 * Listens on `host:port`; `port: 0` picks a free port.
 *
 * @example
 * const { url, close } = await startServer({ token, port: 3000, publicBaseUrl: 'https://blog.example.com' });
 */
export async function startServer({ port = 3000, host = '127.0.0.1', ...options }) {
  const server = createApp(options).listen(port, host);
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const close = () => new Promise((done) => server.close(() => done()).closeAllConnections());
  return { url: `http://${host}:${server.address().port}`, close };
}
