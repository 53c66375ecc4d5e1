import { expectedRefusal } from '../testing/quiet.js';
import { createServer } from 'node:http';
import express from 'express';
import { createReceiver, type ReceiverSettings, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { listen, type RunningServer } from '../helpers/listen.js';

/** A real Express 5 app receiving deliveries at /webhook, as a user's server would; `options` add to the receiver's. */
export async function expressEndpoint(
  token: string,
  handlers: WebhookHandlers,
  options: Partial<ReceiverSettings> = {},
): Promise<RunningServer & { webhookUrl: string }> {
  const app = express();
  app.post('/webhook', webhookHandler(createReceiver({ onRejected: expectedRefusal, ...options, token }), handlers));
  const server = await listen(createServer(app));
  return { ...server, webhookUrl: `${server.url}/webhook` };
}
