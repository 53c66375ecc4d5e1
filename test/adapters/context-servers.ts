import type { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingMessage } from 'node:http';
import express5 from 'express';
import express4 from 'express4';
import fastify5 from 'fastify';
import fastify4 from 'fastify4';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import { createApp, eventHandler, toNodeListener } from 'h3v1';
import { Hono } from 'hono';
import Koa3 from 'koa';
import Koa2 from 'koa2';
import type { Receiver, WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookPlugin } from 'webhook-cms-receiver/fastify';
import { webhookHandler as fetchHandler } from 'webhook-cms-receiver/fetch';
import { webhookHandler as h3Handler } from 'webhook-cms-receiver/h3';
import { webhookHandler as honoHandler } from 'webhook-cms-receiver/hono';
import { webhookHandler as koaHandler } from 'webhook-cms-receiver/koa';
import { webhookHandler as lambdaHandler } from 'webhook-cms-receiver/lambda';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { listen, type RunningServer } from '../helpers/listen.js';
import { lambdaBridge } from './lambda-bridge.js';
import { serveHono } from './servers.js';

/** What the host's middleware puts in its store: the tag the request carried. */
export interface Tagged {
  tag: string;
}

/** The request header a test sets; the host's middleware enters a store holding its value. */
export const TAG_HEADER = 'x-context-tag';

/** Starts a host whose own middleware, before the adapter, enters `als` for each request. */
export type StartInContext = (
  receiver: Receiver,
  handlers: WebhookHandlers,
  als: AsyncLocalStorage<Tagged>,
) => Promise<RunningServer>;

const tagOf = (headers: IncomingMessage['headers'] | Headers): Tagged => {
  const value = headers instanceof Headers ? headers.get(TAG_HEADER) : headers[TAG_HEADER];
  return { tag: String(value ?? 'untagged') };
};

async function fastify(
  app: ReturnType<typeof fastify5>,
  receiver: Receiver,
  handlers: WebhookHandlers,
  als: AsyncLocalStorage<Tagged>,
) {
  app.addHook('onRequest', (request: { headers: IncomingMessage['headers'] }, _reply: unknown, done: () => void) =>
    als.run(tagOf(request.headers), done),
  );
  await app.register(webhookPlugin, { receiver, handlers, path: '/webhook' });
  await app.ready();
  return listen(app.server);
}

/**
 * Every adapter behind its host's usual way of entering a store: `als.run` around `next` in
 * middleware, `enterWith` where the host's middleware has no `next` (h3 1), `als.run` around
 * the handler where the host calls it directly (node:http, Fetch, Lambda).
 */
export const contextHosts: Record<string, StartInContext> = {
  'node:http': (receiver, handlers, als) => {
    const handler = nodeHandler(receiver, handlers);
    return listen(createServer((req, res) => als.run(tagOf(req.headers), () => handler(req, res))));
  },
  'Express 4': (receiver, handlers, als) => {
    const app = express4().use((req, _res, next) => als.run(tagOf(req.headers), next));
    return listen(createServer(app.all('/webhook', expressHandler(receiver, handlers))));
  },
  'Express 5': (receiver, handlers, als) => {
    const app = express5().use((req, _res, next) => als.run(tagOf(req.headers), next));
    return listen(createServer(app.all('/webhook', expressHandler(receiver, handlers))));
  },
  'Fastify 4': (receiver, handlers, als) =>
    fastify(fastify4() as unknown as ReturnType<typeof fastify5>, receiver, handlers, als),
  'Fastify 5': (receiver, handlers, als) => fastify(fastify5(), receiver, handlers, als),
  'Koa 2': (receiver, handlers, als) => {
    const app = new Koa2().use((ctx, next) => als.run(tagOf(ctx.headers), next));
    return listen(createServer(app.use(koaHandler(receiver, handlers)).callback()));
  },
  'Koa 3': (receiver, handlers, als) => {
    const app = new Koa3().use((ctx, next) => als.run(tagOf(ctx.headers), next));
    return listen(createServer(app.use(koaHandler(receiver, handlers)).callback()));
  },
  // As Nitro's `experimental.asyncContext` does: the app's handler runs inside `als.run`.
  'h3 1 on node:http': (receiver, handlers, als) => {
    const app = createApp().use('/webhook', h3Handler(receiver, handlers));
    const inner = app.handler;
    Object.assign(app, {
      handler: eventHandler((event) => als.run(tagOf(event.node.req.headers), () => inner(event))),
    });
    return listen(createServer(toNodeListener(app)));
  },
  'h3 2 on node:http': (receiver, handlers, als) => {
    const app = new H3().use((event, next) => als.run(tagOf(event.req.headers), next));
    return listen(createServer(toNodeHandler(app.all('/webhook', h3Handler(receiver, handlers)))));
  },
  'Hono on @hono/node-server': (receiver, handlers, als) => {
    const app = new Hono().use((c, next) => als.run(tagOf(c.req.raw.headers), next));
    return serveHono(app.all('/webhook', honoHandler(receiver, handlers)).fetch);
  },
  'Fetch handler on @hono/node-server': (receiver, handlers, als) => {
    const handler = fetchHandler(receiver, handlers);
    return serveHono((request, env) => als.run(tagOf(request.headers), () => handler(request, env)));
  },
  'Fetch handler on a Fetch host': (receiver, handlers, als) => {
    const handler = fetchHandler(receiver, handlers);
    return listen(fetchServer((request) => als.run(tagOf(request.headers), () => handler(request))));
  },
  Lambda: (receiver, handlers, als) => {
    const handler = lambdaHandler(receiver, handlers);
    type Event = Parameters<typeof handler>[0];
    const tagged = (event: Event) => ({ tag: String(event.headers?.[TAG_HEADER] ?? 'untagged') });
    return listen(lambdaBridge((event: Event) => als.run(tagged(event), () => handler(event)), { source: 'http-api' }));
  },
};
