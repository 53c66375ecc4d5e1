import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/fetch';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import { adapterScenarios } from './scenarios.js';
import { startFetch, startFetchOnNodeServer1, startFetchOnNodeServer2 } from './servers.js';

adapterScenarios('Fetch handler on node:http', startFetch, { ownsSocket: false });
// @hono/node-server hands the Node objects over, so the adapter closes refused connections itself.
adapterScenarios('Fetch handler on @hono/node-server 2', startFetchOnNodeServer2);
adapterScenarios('Fetch handler on @hono/node-server 1', startFetchOnNodeServer1);

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(fetchServer(handler));
  onTestFinished(() => server.close());
  return `${server.url}/webhook`;
}

describe('Fetch: a body read before the handler', () => {
  it('answers 500 Server misconfigured, not 403, when request.json() already consumed the body', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const webhook = webhookHandler(createReceiver({ token: TOKEN }), {});
    const url = await serve(async (request) => {
      await request.json();
      return webhook(request);
    });
    expect(await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(
      answers.error(500, 'Server misconfigured'),
    );
    expect(errors).toHaveBeenCalledTimes(1);
  });
});

describe('Fetch: a body locked by a reader (contract v2)', () => {
  it('answers 500 Server misconfigured, not 400, when request.body.getReader() locked the body', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const webhook = webhookHandler(createReceiver({ token: TOKEN }), {});
    const url = await serve(async (request) => {
      request.body?.getReader();
      return webhook(request);
    });
    expect(await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(
      answers.error(500, 'Server misconfigured'),
    );
    expect(String(errors.mock.calls[0]?.[0])).toMatch(/getReader/);
  });
});

describe('Fetch: verifyWebhook', () => {
  const verify = verifyWebhook(createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES }));
  const ownAnswer = async (request: Request) => {
    const result = await verify(request);
    if ('response' in result) return result.response;
    const { event } = result;
    return Response.json(
      { received: event.type, slug: event.type === 'article.sync' ? event.article.slug : null },
      { status: 202 },
    );
  };

  it('resolves to the verified event so the route writes its own Response', async () => {
    const url = await serve(ownAnswer);
    const answer = await send(
      url,
      signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'fetched' } }) }),
    );
    expect(answer).toEqual({
      status: 202,
      contentType: 'application/json',
      allow: undefined,
      body: { received: 'article.sync', slug: 'fetched' },
    });
  });

  it('resolves to the contract answer when the delivery is refused', async () => {
    const url = await serve(ownAnswer);
    const { headers, body } = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
    expect(await send(url, { headers, body: `${String(body)} ` })).toEqual(answers.error(403, 'Invalid signature'));
  });
});
