import { expectedRefusal } from './quiet.js';
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createReceiver, type ReceiverOptions, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { listen, type RunningServer } from '../helpers/listen.js';

/** A request as the endpoint received it. */
export interface SeenRequest {
  headers: Record<string, string>;
  body: string;
}

/** A real webhook endpoint on 127.0.0.1: the fetch adapter on node:http. */
export interface Endpoint extends RunningServer {
  /** The URL to deliver to. */
  webhookUrl: string;
  /** Every request, in arrival order. */
  requests: SeenRequest[];
}

/**
 * Starts an endpoint that verifies deliveries with `receiver.handle` and runs `handlers`.
 *
 * @example
 * ```ts
 * const endpoint = await startEndpoint({ token: 't' }, { 'article.sync': () => ({ publishedUrl: 'https://x/' }) });
 * ```
 */
export async function startEndpoint(options: ReceiverOptions, handlers: WebhookHandlers = {}): Promise<Endpoint> {
  const handle = webhookHandler(createReceiver({ onRejected: expectedRefusal, ...options }), handlers);
  const requests: SeenRequest[] = [];
  const listener = getRequestListener(async (request: Request) => {
    requests.push({ headers: Object.fromEntries(request.headers), body: await request.clone().text() });
    return handle(request);
  });
  const server = await listen(createServer(listener));
  return { ...server, webhookUrl: `${server.url}/webhook`, requests };
}

/** A URL where nothing listens: a port that was free a moment ago. */
export async function deadUrl(): Promise<string> {
  const server = await listen(createServer());
  await server.close();
  return `${server.url}/webhook`;
}
