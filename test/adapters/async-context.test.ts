import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { contextHosts, TAG_HEADER, type Tagged } from './context-servers.js';
import { answers, MAX_BODY_BYTES, TOKEN } from './deliveries.js';

// Issue 31 item 7: a store the host's middleware enters before the adapter is the store the
// handlers see, per request, whether the body arrives in one chunk or many.
describe.each(Object.entries(contextHosts))('%s: the handler runs in the request’s async context', (_name, start) => {
  async function serve(): Promise<string> {
    const als = new AsyncLocalStorage<Tagged>();
    const handlers: WebhookHandlers = {
      'article.sync': async ({ article }) => {
        const before = als.getStore()?.tag ?? 'none';
        // The store must survive the handler's own awaits too, as a database client's would.
        await new Promise((resolve) => setImmediate(resolve));
        const after = als.getStore()?.tag ?? 'none';
        return { publishedUrl: `https://blog.example.com/${article.slug}/${before}/${after}` };
      },
    };
    const receiver = createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
    const server = await start(receiver, handlers, als);
    onTestFinished(() => server.close());
    return `${server.url}/webhook`;
  }

  const tagged = (slug: string, tag: string, contentHtml = '<p>short</p>') => {
    const delivery = signDelivery({
      token: TOKEN,
      payload: articleSyncPayload({ article: { slug, content_html: contentHtml } }),
    });
    return { ...delivery, headers: { ...delivery.headers, [TAG_HEADER]: tag } };
  };

  it('sees the store of its own request, with two requests at once', async () => {
    const url = await serve();
    const [first, second] = await Promise.all([
      send(url, tagged('first', 'tag-a')),
      send(url, tagged('second', 'tag-b')),
    ]);
    expect(first).toEqual(answers.ok('https://blog.example.com/first/tag-a/tag-a'));
    expect(second).toEqual(answers.ok('https://blog.example.com/second/tag-b/tag-b'));
  });

  it('sees it when the body arrives in many chunks', async () => {
    const url = await serve();
    const html = `<p>${'long paragraph '.repeat(20_000)}</p>`;
    expect(await send(url, tagged('long', 'tag-long', html))).toEqual(
      answers.ok('https://blog.example.com/long/tag-long/tag-long'),
    );
  });
});
