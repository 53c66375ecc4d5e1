import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import { adapterScenarios } from './scenarios.js';
import type { StartAdapter } from './servers.js';

let functions = 0;

/**
 * The `/node` adapter as a Google Cloud Function, served by the real
 * `@google-cloud/functions-framework`: its Express stack parses every body first and keeps the
 * bytes on `req.rawBody`, as Cloud Functions and Firebase do in production.
 */
const startCloudFunction: StartAdapter = (receiver, handlers) => {
  const name = `webhook${++functions}`;
  http(name, webhookHandler(receiver, handlers));
  return listen(getTestServer(name));
};

// The framework reads every body before the function runs, so nothing answers from headers alone.
adapterScenarios('Google Cloud Functions (functions-framework)', startCloudFunction, {
  buffersBody: true,
  parsesJson: true,
});

describe('Google Cloud Functions: what the framework leaves to the adapter', () => {
  it('answers 413 to a valid JSON article over maxBodyBytes that the framework read whole', async () => {
    const receiver = createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
    const server = await startCloudFunction(receiver, {});
    onTestFinished(() => server.close());
    const html = 'x'.repeat(MAX_BODY_BYTES);
    const signed = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { content_html: html } }) });
    expect(await send(`${server.url}/webhook`, signed)).toEqual(answers.error(413, 'Payload too large'));
  });
});
