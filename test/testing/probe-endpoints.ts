import { expectedRefusal } from './quiet.js';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import { createReceiver, type ReceiverOptions, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { listen, type RunningServer } from '../helpers/listen.js';

/** A running endpoint and the URL to probe. */
export type ProbeTarget = RunningServer & { webhookUrl: string };

const target = async (server: ReturnType<typeof createServer>): Promise<ProbeTarget> => {
  const running = await listen(server);
  return { ...running, webhookUrl: `${running.url}/webhook` };
};

/** A correct endpoint as the starters build it: Express 5, `app.post` (so GET gets Express's own 404). */
export function expressTarget(options: ReceiverOptions, handlers: WebhookHandlers): Promise<ProbeTarget> {
  const app = express();
  app.post('/webhook', expressHandler(createReceiver({ onRejected: expectedRefusal, ...options }), handlers));
  return target(createServer(app));
}

/** A correct endpoint on node:http, answering every method (so GET gets 405 with Allow: POST). */
export function nodeTarget(options: ReceiverOptions, handlers: WebhookHandlers): Promise<ProbeTarget> {
  return target(createServer(nodeHandler(createReceiver({ onRejected: expectedRefusal, ...options }), handlers)));
}

/** Wrong on purpose: the receiver decides, then `remap` rewrites its answer's status. */
export function remappedTarget(
  options: ReceiverOptions,
  handlers: WebhookHandlers,
  remap: (status: number, body: object) => number,
): Promise<ProbeTarget> {
  const receiver = createReceiver({ onRejected: expectedRefusal, ...options });
  return target(
    createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await receiver.handle({ headers: req.headers, body: Buffer.concat(chunks) }, handlers);
      res.writeHead(remap(answer.status, answer.body), { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    }),
  );
}

/** What a hand-written endpoint skips. */
export interface Sloppiness {
  signature?: boolean;
  window?: boolean;
  /** Echo the Authorization header back in the answer. */
  echo?: boolean;
}

/**
 * A hand-written endpoint on node:http, of the kind the contract exists to prevent: it checks
 * the token and the timestamp format, and skips what `skip` names.
 */
export function sloppyTarget(token: string, skip: Sloppiness): Promise<ProbeTarget> {
  return target(
    createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const answer = (status: number, json: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(skip.echo ? { ...json, authorization: req.headers.authorization } : json));
      };
      if (req.method !== 'POST') return answer(405, { error: 'Method not allowed' });
      if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: 'Invalid token' });
      const timestamp = String(req.headers['x-service-timestamp'] ?? '');
      if (!/^\d+$/.test(timestamp)) return answer(403, { error: 'Invalid timestamp' });
      if (!skip.window && Math.abs(Date.now() / 1000 - Number(timestamp)) >= 300)
        return answer(403, { error: 'Request expired' });
      const expected = `sha256=${createHmac('sha256', token).update(`${timestamp}.`).update(body).digest('hex')}`;
      if (!skip.signature && req.headers['x-service-signature'] !== expected)
        return answer(403, { error: 'Invalid signature' });
      return answer(200, { ok: true });
    }),
  );
}
