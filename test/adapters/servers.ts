import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { serve as serveNodeServer1 } from 'hono-node-server1';
import express5 from 'express';
import express4 from 'express4';
import { Hono } from 'hono';
import type { Receiver, WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as fetchHandler } from 'webhook-cms-receiver/fetch';
import { webhookHandler as honoHandler } from 'webhook-cms-receiver/hono';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { listen, running, type RunningServer } from '../helpers/listen.js';
import { h3Adapters } from './h3-servers.js';
import { nodeFrameworkAdapters } from './node-servers.js';
import { serverlessAdapters } from './serverless-servers.js';

/** Starts one framework's server with the webhook route at `/webhook`. */
export type StartAdapter = (receiver: Receiver, handlers: WebhookHandlers) => Promise<RunningServer>;

// `all`, not `post`: the adapter itself must answer other methods with 405.

/**
 * Express 4 (`express4` is `npm:express@4`) with the adapter at `/webhook`.
 *
 * @example
 * ```ts
 * const { url, close } = await startExpress4(receiver, handlers);
 * ```
 */
export const startExpress4: StartAdapter = (receiver, handlers) =>
  listen(createServer(express4().all('/webhook', expressHandler(receiver, handlers))));

/**
 * Express 5 with the adapter at `/webhook`.
 *
 * @example
 * ```ts
 * const { url, close } = await startExpress5(receiver, handlers);
 * ```
 */
export const startExpress5: StartAdapter = (receiver, handlers) =>
  listen(createServer(express5().all('/webhook', expressHandler(receiver, handlers))));

/**
 * Hono on `@hono/node-server` with the adapter at `/webhook`.
 *
 * @example
 * ```ts
 * const { url, close } = await startHono(receiver, handlers);
 * ```
 */
export const startHono: StartAdapter = (receiver, handlers) => {
  const app = new Hono().all('/webhook', honoHandler(receiver, handlers));
  return serveHono(app.fetch);
};

/**
 * Hono on `@hono/node-server` 1 (`hono-node-server1` is `npm:@hono/node-server@1`).
 *
 * @example
 * ```ts
 * const { url, close } = await startHonoOnNodeServer1(receiver, handlers);
 * ```
 */
export const startHonoOnNodeServer1: StartAdapter = (receiver, handlers) => {
  const app = new Hono().all('/webhook', honoHandler(receiver, handlers));
  return serveHono(app.fetch, 1);
};

/**
 * The Fetch adapter served by `@hono/node-server` 2, which hands it the Node objects as its
 * second argument.
 *
 * @example
 * ```ts
 * const { url, close } = await startFetchOnNodeServer2(receiver, handlers);
 * ```
 */
export const startFetchOnNodeServer2: StartAdapter = (receiver, handlers) =>
  serveHono(fetchHandler(receiver, handlers), 2);

/**
 * The Fetch adapter served by `@hono/node-server` 1.
 *
 * @example
 * ```ts
 * const { url, close } = await startFetchOnNodeServer1(receiver, handlers);
 * ```
 */
export const startFetchOnNodeServer1: StartAdapter = (receiver, handlers) =>
  serveHono(fetchHandler(receiver, handlers), 1);

/**
 * The Fetch handler behind a plain node:http → `Request` bridge, at any path.
 *
 * @example
 * ```ts
 * const { url, close } = await startFetch(receiver, handlers);
 * ```
 */
export const startFetch: StartAdapter = (receiver, handlers) => listen(fetchServer(fetchHandler(receiver, handlers)));

/**
 * Serves a Hono app's `fetch` with `@hono/node-server` on 127.0.0.1, port 0.
 *
 * @example
 * ```ts
 * const { url, close } = await serveHono(new Hono().post('/webhook', handler).fetch);
 * ```
 */
export async function serveHono(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  major: 1 | 2 = 2,
): Promise<RunningServer> {
  const options = { fetch, port: 0, hostname: '127.0.0.1' };
  const server = (major === 1 ? serveNodeServer1(options) : serve(options)) as Server;
  if (!server.listening) await once(server, 'listening');
  return running(server);
}

/** Every adapter, by the name the suites print. */
export const adapters: Record<string, StartAdapter> = {
  'Express 4': startExpress4,
  'Express 5': startExpress5,
  'Hono on @hono/node-server': startHono,
  'Hono on @hono/node-server 1': startHonoOnNodeServer1,
  'Fetch handler on node:http': startFetch,
  'Fetch handler on @hono/node-server 2': startFetchOnNodeServer2,
  'Fetch handler on @hono/node-server 1': startFetchOnNodeServer1,
  ...nodeFrameworkAdapters,
  ...h3Adapters,
  ...serverlessAdapters,
};
