import { createServer } from 'node:http';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import { createApp, toNodeListener, toWebHandler } from 'h3v1';
import { webhookHandler } from 'webhook-cms-receiver/h3';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { listen } from '../helpers/listen.js';
import type { StartAdapter } from './servers.js';

// `app.use` on h3 1 and `all` on h3 2: every method reaches the adapter, which answers 405 itself.

/**
 * h3 1 (`h3v1` is `npm:h3@1`) on node:http through `toNodeListener`, as Nuxt and Nitro serve it.
 *
 * @example
 * ```ts
 * const { url, close } = await startH3v1(receiver, handlers);
 * ```
 */
export const startH3v1: StartAdapter = (receiver, handlers) =>
  listen(createServer(toNodeListener(createApp().use('/webhook', webhookHandler(receiver, handlers)))));

/**
 * h3 1 through `toWebHandler`, as Nitro's edge presets run it: a Fetch `Request` in, behind
 * the node:http → Fetch bridge.
 *
 * @example
 * ```ts
 * const { url, close } = await startH3v1Web(receiver, handlers);
 * ```
 */
export const startH3v1Web: StartAdapter = (receiver, handlers) =>
  listen(fetchServer(toWebHandler(createApp().use('/webhook', webhookHandler(receiver, handlers)))));

/**
 * h3 2 on node:http through `toNodeHandler` from `h3/node`.
 *
 * @example
 * ```ts
 * const { url, close } = await startH3v2(receiver, handlers);
 * ```
 */
export const startH3v2: StartAdapter = (receiver, handlers) =>
  listen(createServer(toNodeHandler(new H3().all('/webhook', webhookHandler(receiver, handlers)))));

/**
 * h3 2's `app.fetch` behind the node:http → Fetch bridge, as Bun, Deno and Workers run it.
 *
 * @example
 * ```ts
 * const { url, close } = await startH3v2Fetch(receiver, handlers);
 * ```
 */
export const startH3v2Fetch: StartAdapter = (receiver, handlers) => {
  const app = new H3().all('/webhook', webhookHandler(receiver, handlers));
  return listen(fetchServer(async (request) => app.fetch(request)));
};

/** Every h3 server, by the name the suites print. */
export const h3Adapters: Record<string, StartAdapter> = {
  'h3 1 on node:http (toNodeListener)': startH3v1,
  'h3 1 through toWebHandler': startH3v1Web,
  'h3 2 on node:http (toNodeHandler)': startH3v2,
  'h3 2 app.fetch on a Fetch host': startH3v2Fetch,
};
