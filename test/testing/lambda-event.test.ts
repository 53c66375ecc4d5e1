import type { ALBEvent, APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyHandlerV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/lambda';
import { articleSyncPayload, lambdaEvent, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_lambda_event_test_token';
const published = { publishedUrl: 'https://blog.example.com/from-lambda' };

// The handler type the adapter's TSDoc suggests: checked by `satisfies`, still callable with the event alone.
const handler = webhookHandler(createReceiver({ token }), {
  'article.sync': () => published,
}) satisfies APIGatewayProxyHandlerV2;

describe('lambdaEvent (contract v3)', () => {
  it.each([
    ['v1', false],
    ['v1', true],
    ['v2', false],
    ['v2', true],
    ['alb', false],
    ['alb', true],
  ] as const)(
    'builds a %s event (base64: %s) that the /lambda adapter verifies and handles',
    async (format, base64) => {
      const signed = signDelivery({ token, payload: articleSyncPayload({ article: { title: 'Café 日本' } }) });
      // A table's `format` is a union: the overload for it returns the union of the three events.
      const event = lambdaEvent(signed, { format, base64 });
      expect(event.isBase64Encoded).toBe(base64);
      const result = await handler(event);
      expect(result).toMatchObject({ statusCode: 200 });
      expect(JSON.parse(result.body)).toEqual({ ok: true, published_url: published.publishedUrl });
    },
  );

  it('builds ALB events with multi-value headers, which the adapter answers in the same shape', async () => {
    const event = lambdaEvent(signDelivery({ token, payload: articleSyncPayload() }), {
      format: 'alb',
      multiValueHeaders: true,
    });
    expect(event.headers).toBeUndefined();
    expect(event.multiValueHeaders?.authorization).toEqual([`Bearer ${token}`]);
    expect(await handler(event)).toMatchObject({ statusCode: 200, multiValueHeaders: expect.any(Object) });
  });

  it('keeps the path and method it is given, and a wrong token is refused as on the wire', async () => {
    const signed = signDelivery({ token: 'another-token', payload: articleSyncPayload() });
    const event = lambdaEvent(signed, { format: 'v2', path: '/hooks/cms' });
    expect(event.rawPath).toBe('/hooks/cms');
    expect(await handler(event)).toMatchObject({ statusCode: 401 });
    expect(await handler(lambdaEvent(signed, { format: 'v1', method: 'GET' }))).toMatchObject({ statusCode: 405 });
  });

  it('types each format as @types/aws-lambda declares it, without casts', () => {
    const signed = signDelivery({ token, payload: articleSyncPayload() });
    const rest: APIGatewayProxyEvent = lambdaEvent(signed, { format: 'v1' });
    const http: APIGatewayProxyEventV2 = lambdaEvent(signed, { format: 'v2' });
    const alb: ALBEvent = lambdaEvent(signed, { format: 'alb' });
    expect([rest.httpMethod, http.requestContext.http.method, alb.httpMethod]).toEqual(['POST', 'POST', 'POST']);
  });
});
