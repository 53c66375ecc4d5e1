import type {
  ALBEvent,
  ALBHandler,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyHandler,
  APIGatewayProxyHandlerV2,
  LambdaFunctionURLHandler,
} from 'aws-lambda';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { type LambdaHttpEvent, type LambdaResult, verifyWebhook, webhookHandler } from 'webhook-cms-receiver/lambda';
import { vectors } from '../helpers/vectors.js';
import { type LambdaSource, lambdaEvent, lambdaSources, recordedEvent } from './lambda-events.js';
import { adapterScenarios, type AdapterTraits } from './scenarios.js';
import { serverlessAdapters } from './serverless-servers.js';

// The platform reads each body before the function runs: see `buffersBody` in scenarios.ts.
const buffered = { ownsSocket: false, buffersBody: true } as AdapterTraits;
for (const [name, start] of Object.entries(serverlessAdapters)) adapterScenarios(name, start, buffered);

// The recorded fixtures carry the shared vector "valid article.sync", signed at NOW with TOKEN.
const [recorded] = vectors.filter((vector) => vector.name === 'valid article.sync');
const TOKEN = recorded!.tokens[0]!;
const NOW = recorded!.now;
const publish = (event: WebhookEvent) => ({ publishedUrl: `https://blog.example.com/${event.name}` });
const handlers = { test: publish, 'article.sync': publish, 'article.trash': publish, unknown: publish };
const OK = { ok: true, published_url: 'https://blog.example.com/article.sync' };

/** A fresh receiver (so a fresh dedup store) at the fixtures' time, and its Lambda handler. */
function handlerAt(now = NOW, tokens = [TOKEN], dedup = true) {
  const receiver = createReceiver({ token: tokens, now: () => now * 1000, ...(dedup ? {} : { dedup: false }) });
  return webhookHandler(receiver, handlers);
}

const invoke = (event: unknown, handler = handlerAt()) => handler(event as LambdaHttpEvent);
const bodyOf = (result: LambdaResult) => JSON.parse(result.body) as unknown;
const JSON_TYPE = 'application/json; charset=utf-8';

/** Silences and records console.error for one test. */
function errorLog() {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map((call) => call.map(String).join(' ')).join('\n');
}

describe('Lambda: recorded events of each source', () => {
  it.each([
    ['api-gateway-rest', { headers: { 'content-type': JSON_TYPE } }],
    ['api-gateway-rest-base64', { headers: { 'content-type': JSON_TYPE } }],
    ['http-api-v2', { headers: { 'content-type': JSON_TYPE } }],
    ['function-url', { headers: { 'content-type': JSON_TYPE } }],
    ['alb', { statusDescription: '200 OK', headers: { 'content-type': JSON_TYPE } }],
    ['alb-multi-value', { statusDescription: '200 OK', multiValueHeaders: { 'content-type': [JSON_TYPE] } }],
    ['rest-template-base64-body', { headers: { 'content-type': JSON_TYPE } }],
  ])('%s: verifies the delivery and answers in the shape its source expects', async (name, shape) => {
    const result = await invoke(recordedEvent(name));
    expect(result).toEqual({ statusCode: 200, ...shape, body: JSON.stringify(OK), isBase64Encoded: false });
  });

  it.each([
    ['an empty object', {}],
    ['null', null],
  ])(
    'reads headers of a REST API event whose multiValueHeaders is %s (test invokers, some proxies)',
    async (_shape, multi) => {
      const event = { ...recordedEvent<Record<string, unknown>>('api-gateway-rest'), multiValueHeaders: multi };
      expect(await invoke(event)).toMatchObject({ statusCode: 200, body: JSON.stringify(OK) });
    },
  );

  it('answers a redelivery of a recorded event as a duplicate, without running the handler again', async () => {
    const sync = vi.fn(publish);
    const counting = webhookHandler(createReceiver({ token: TOKEN, now: () => NOW * 1000 }), { 'article.sync': sync });
    await invoke(recordedEvent('http-api-v2'), counting);
    const again = await invoke(recordedEvent('api-gateway-rest-base64'), counting);
    expect(bodyOf(again)).toEqual({ ...OK, duplicate: true });
    expect(sync).toHaveBeenCalledTimes(1);
  });

  it('fits the handler types of @types/aws-lambda for every source', async () => {
    const handler = handlerAt(NOW, [TOKEN], false);
    const typed: [APIGatewayProxyHandler, APIGatewayProxyHandlerV2, LambdaFunctionURLHandler, ALBHandler] = [
      handler,
      handler,
      handler,
      handler,
    ];
    const context = {} as Parameters<APIGatewayProxyHandler>[1];
    const answers = await Promise.all([
      typed[0](recordedEvent<APIGatewayProxyEvent>('api-gateway-rest'), context, () => undefined),
      typed[1](recordedEvent<APIGatewayProxyEventV2>('http-api-v2'), context, () => undefined),
      typed[2](recordedEvent<APIGatewayProxyEventV2>('function-url'), context, () => undefined),
      typed[3](recordedEvent<ALBEvent>('alb'), context, () => undefined),
    ]);
    expect(answers.map((answer) => (answer as LambdaResult).statusCode)).toEqual([200, 200, 200, 200]);
  });
});

describe('Lambda: the shared signed vectors through every source, as text and base64', () => {
  const cases = lambdaSources.flatMap((source) =>
    [false, true].flatMap((base64) => vectors.map((vector) => [source, base64, vector.name, vector] as const)),
  );
  it.each(cases)('%s (base64: %s): %s', async (source, base64, _name, vector) => {
    const handler = handlerAt(vector.now, vector.tokens, false);
    const result = await invoke(lambdaEvent(source, { headers: vector.headers, body: vector.body, base64 }), handler);
    expect(result.statusCode).toBe(vector.expect.status);
    expect(bodyOf(result)).toEqual(
      vector.expect.status === 200
        ? { ok: true, published_url: `https://blog.example.com/${vector.expect.event}` }
        : { error: vector.expect.error },
    );
  });
});

describe('Lambda: repeated security headers are refused, as on every adapter', () => {
  const signed = vectors.find((vector) => vector.name === 'valid test event without event header')!;
  const lines = (extra: [string, string][]) => [...Object.entries(signed.headers), ...extra];
  const sources: LambdaSource[] = ['rest-api', 'http-api', 'alb-multi-value'];

  it.each(sources)('%s: two Authorization headers, the good one last, answer 401', async (source) => {
    const headers = lines([]).filter(([name]) => name !== 'Authorization');
    const auth: [string, string][] = [
      ['Authorization', 'Bearer wrong'],
      ['Authorization', signed.headers.Authorization!],
    ];
    const event = lambdaEvent(source, { headers: [...auth, ...headers], body: signed.body });
    const result = await invoke(event, handlerAt(signed.now, signed.tokens));
    expect([result.statusCode, bodyOf(result)]).toEqual([401, { error: 'Invalid token' }]);
  });

  it.each(sources)('%s: a second X-Service-Signature answers 403', async (source) => {
    const event = lambdaEvent(source, {
      headers: lines([['X-Service-Signature', signed.headers['X-Service-Signature']!]]),
      body: signed.body,
    });
    const result = await invoke(event, handlerAt(signed.now, signed.tokens));
    expect([result.statusCode, bodyOf(result)]).toEqual([403, { error: 'Invalid signature' }]);
  });
});

describe('Lambda: refusals in each shape', () => {
  it.each(lambdaSources)('%s: GET answers 405 with Allow: POST', async (source) => {
    const result = await invoke(lambdaEvent(source, { method: 'GET', headers: {}, body: '' }));
    expect(result.statusCode).toBe(405);
    expect(result.headers?.allow ?? result.multiValueHeaders?.allow?.[0]).toBe('POST');
    expect(result.headers?.connection ?? result.multiValueHeaders?.connection).toBeUndefined();
    if (source.startsWith('alb')) expect(result.statusDescription).toBe('405 Method Not Allowed');
  });

  it.each(lambdaSources)('%s: a body over maxBodyBytes answers 413', async (source) => {
    const handler = webhookHandler(createReceiver({ token: TOKEN, now: () => NOW * 1000, maxBodyBytes: 100 }), {});
    const headers = { ...recorded!.headers, 'Content-Length': '529' };
    const result = await invoke(lambdaEvent(source, { headers, body: recorded!.body }), handler);
    expect([result.statusCode, bodyOf(result)]).toEqual([413, { error: 'Payload too large' }]);
  });

  it('answers 500 Handler failed when the handler throws, so the service retries', async () => {
    const log = errorLog();
    const receiver = createReceiver({ token: TOKEN, now: () => NOW * 1000 });
    const failing = webhookHandler(receiver, {
      'article.sync': () => {
        throw new Error('table locked');
      },
    });
    expect(bodyOf(await invoke(recordedEvent('http-api-v2'), failing))).toEqual({ error: 'Handler failed' });
    expect(log()).toContain('table locked');
  });
});

describe('Lambda: a body re-serialized by a REST API mapping template', () => {
  it.each([
    ['the non-proxy passthrough (the event is the parsed body)', 'rest-non-proxy-passthrough'],
    ['a template that put $input.json in body', 'rest-template-json-body'],
  ])('%s: answers 500 Server misconfigured and logs the fix, never the token', async (_case, name) => {
    const log = errorLog();
    const result = await invoke(recordedEvent(name));
    expect(result).toEqual({
      statusCode: 500,
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ error: 'Server misconfigured' }),
      isBase64Encoded: false,
    });
    expect(log()).toContain('$util.base64Encode($input.body)');
    expect(log()).toContain('proxy integration');
    expect(log()).not.toContain(TOKEN);
    expect(log()).not.toContain('Ten SEO tips');
  });

  it('checks the token first when the template kept the headers: a wrong one is 401', async () => {
    const event = { ...recordedEvent<Record<string, unknown>>('rest-template-json-body'), headers: {} };
    expect((await invoke(event)).statusCode).toBe(401);
  });
});

describe('Lambda: verifyWebhook', () => {
  const verify = verifyWebhook(createReceiver({ token: TOKEN, now: () => NOW * 1000 }));

  it('resolves to the verified event', async () => {
    const verified = await verify(recordedEvent<APIGatewayProxyEventV2>('function-url'));
    expect('event' in verified && verified.event.type).toBe('article.sync');
  });

  it('resolves to the result to return when the delivery is refused', async () => {
    const event = lambdaEvent('alb', { headers: { ...recorded!.headers, Authorization: 'Bearer no' }, body: '{}' });
    const verified = await verify(event as LambdaHttpEvent);
    expect('result' in verified && verified.result).toMatchObject({
      statusCode: 401,
      statusDescription: '401 Unauthorized',
    });
  });
});
