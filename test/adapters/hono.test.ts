import { Hono } from 'hono';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler, type WebhookVariables } from 'webhook-cms-receiver/hono';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { answers, JSON_TYPE, MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import { adapterScenarios } from './scenarios.js';
import { serveHono, startHono, startHonoOnNodeServer1 } from './servers.js';

adapterScenarios('Hono on @hono/node-server', startHono);
adapterScenarios('Hono on @hono/node-server 1', startHonoOnNodeServer1);

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });

async function serve(app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<string> {
  const server = await serveHono(app.fetch);
  onTestFinished(() => server.close());
  return `${server.url}/webhook`;
}

describe('Hono: verifyWebhook', () => {
  it("puts the verified event on the context as c.get('webhookEvent')", async () => {
    const app = new Hono<{ Variables: WebhookVariables }>().post('/webhook', verifyWebhook(receiver()), (c) => {
      const event = c.get('webhookEvent');
      return c.json({ received: event.type, slug: event.type === 'article.sync' ? event.article.slug : null }, 202);
    });
    const url = await serve(app);
    const answer = await send(
      url,
      signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'on-context' } }) }),
    );
    expect(answer).toEqual({
      status: 202,
      contentType: 'application/json',
      allow: undefined,
      body: { received: 'article.sync', slug: 'on-context' },
    });
  });

  it('answers a wrong token itself and never reaches the route', async () => {
    let reached = false;
    const app = new Hono<{ Variables: WebhookVariables }>().post('/webhook', verifyWebhook(receiver()), (c) => {
      reached = true;
      return c.text('reached');
    });
    const url = await serve(app);
    expect(await send(url, signDelivery({ token: 'wrong-token', payload: articleSyncPayload() }))).toEqual(
      answers.error(401, 'Invalid token'),
    );
    expect(reached).toBe(false);
  });
});

describe('Hono: middleware that read the body first', () => {
  it('uses the bytes Hono cached when an earlier middleware called c.req.arrayBuffer()', async () => {
    const app = new Hono().use(async (c, next) => {
      await c.req.arrayBuffer();
      await next();
    });
    const url = await serve(app.post('/webhook', webhookHandler(receiver(), {})));
    const answer = await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }));
    expect(answer).toEqual({ status: 200, contentType: JSON_TYPE, allow: undefined, body: { ok: true } });
  });

  it('answers 500 Server misconfigured, not 403, when an earlier middleware called c.req.json()', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const app = new Hono().use(async (c, next) => {
      await c.req.json();
      await next();
    });
    const url = await serve(app.post('/webhook', webhookHandler(receiver(), {})));
    expect(await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(
      answers.error(500, 'Server misconfigured'),
    );
    expect(errors).toHaveBeenCalledTimes(1);
  });
});
