import { createServer } from 'node:http';
import fastify5 from 'fastify';
import fastify4 from 'fastify4';
import Koa3 from 'koa';
import Koa2 from 'koa2';
import { webhookPlugin } from 'webhook-cms-receiver/fastify';
import { webhookHandler as koaHandler } from 'webhook-cms-receiver/koa';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { listen } from '../helpers/listen.js';
import type { StartAdapter } from './servers.js';

/**
 * The `node:http` adapter as a plain server's request listener, at any path.
 *
 * @example
 * ```ts
 * const { url, close } = await startNode(receiver, handlers);
 * ```
 */
export const startNode: StartAdapter = (receiver, handlers) => listen(createServer(nodeHandler(receiver, handlers)));

/**
 * Fastify 5 with `webhookPlugin` at `/webhook`.
 *
 * @example
 * ```ts
 * const { url, close } = await startFastify5(receiver, handlers);
 * ```
 */
export const startFastify5: StartAdapter = async (receiver, handlers) => {
  const app = fastify5();
  await app.register(webhookPlugin, { receiver, handlers, path: '/webhook' });
  // Served by our own listen(), so the suites can count the bytes each socket read.
  await app.ready();
  return listen(app.server);
};

/**
 * Fastify 4 (`fastify4` is `npm:fastify@4`) with `webhookPlugin` at `/webhook`.
 *
 * @example
 * ```ts
 * const { url, close } = await startFastify4(receiver, handlers);
 * ```
 */
export const startFastify4: StartAdapter = async (receiver, handlers) => {
  const app = fastify4();
  await app.register(webhookPlugin, { receiver, handlers, path: '/webhook' });
  await app.ready();
  return listen(app.server);
};

/**
 * Koa 3 with the adapter as the only middleware, at any path.
 *
 * @example
 * ```ts
 * const { url, close } = await startKoa3(receiver, handlers);
 * ```
 */
export const startKoa3: StartAdapter = (receiver, handlers) =>
  listen(createServer(new Koa3().use(koaHandler(receiver, handlers)).callback()));

/**
 * Koa 2 (`koa2` is `npm:koa@2`) with the adapter as the only middleware, at any path.
 *
 * @example
 * ```ts
 * const { url, close } = await startKoa2(receiver, handlers);
 * ```
 */
export const startKoa2: StartAdapter = (receiver, handlers) =>
  listen(createServer(new Koa2().use(koaHandler(receiver, handlers)).callback()));

/** The `node:http`-based adapters, by the name the suites print; merged into `adapters` in servers.ts. */
export const nodeFrameworkAdapters: Record<string, StartAdapter> = {
  'node:http': startNode,
  'Fastify 4': startFastify4,
  'Fastify 5': startFastify5,
  'Koa 2': startKoa2,
  'Koa 3': startKoa3,
};
