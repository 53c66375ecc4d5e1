import type { SignedDelivery } from './sign-delivery.js';
import type { LambdaAlbEvent, LambdaHttpApiEvent, LambdaRestApiEvent } from './lambda-event-types.js';

export type { LambdaAlbEvent, LambdaHttpApiEvent, LambdaRestApiEvent } from './lambda-event-types.js';

/** Options of {@link lambdaEvent}. */
export interface LambdaEventOptions {
  /**
   * Which source hands the event over: `v1` a REST API (payload 1.0), `v2` an HTTP API or a
   * Function URL (payload 2.0), `alb` an Application Load Balancer. Default `v2`.
   */
  format?: 'v1' | 'v2' | 'alb';
  /** Hand the body over base64-encoded, as API Gateway does for binary media types. Default false. */
  base64?: boolean;
  /** The request path. Default `/webhook`. */
  path?: string;
  /** ALB only: the target group has multi-value headers on (`multiValueHeaders`, not `headers`). Default false. */
  multiValueHeaders?: boolean;
  /** The HTTP method. Default `POST`. */
  method?: string;
}

const encoder = new TextEncoder();

/**
 * Turns a `signDelivery` result into the event AWS hands a Lambda function for it, for unit
 * tests of a handler made with `webhook-cms-receiver/lambda`: header casing, repeated headers
 * and the body encoding as each source delivers them. The result is assignable to
 * `APIGatewayProxyEvent` (v1), `APIGatewayProxyEventV2` (v2) or `ALBEvent` (alb) from
 * `@types/aws-lambda`.
 *
 * @example
 * ```ts
 * import { lambdaEvent, signDelivery, articleSyncPayload } from 'webhook-cms-receiver/testing';
 * import { handler } from './handler.js';
 *
 * const signed = signDelivery({ token: 'test-token', payload: articleSyncPayload() });
 * const result = await handler(lambdaEvent(signed, { format: 'v2' }));
 * expect(result.statusCode).toBe(200);
 * ```
 */
export function lambdaEvent(signed: SignedDelivery, options: LambdaEventOptions & { format: 'v1' }): LambdaRestApiEvent;
export function lambdaEvent(signed: SignedDelivery, options: LambdaEventOptions & { format: 'alb' }): LambdaAlbEvent;
export function lambdaEvent(
  signed: SignedDelivery,
  options?: LambdaEventOptions & { format?: 'v2' },
): LambdaHttpApiEvent;
/** A `format` only known at run time (a table of formats in a test): the union of the three. */
export function lambdaEvent(
  signed: SignedDelivery,
  options?: LambdaEventOptions,
): LambdaRestApiEvent | LambdaHttpApiEvent | LambdaAlbEvent;
export function lambdaEvent(
  signed: SignedDelivery,
  options: LambdaEventOptions = {},
): LambdaRestApiEvent | LambdaHttpApiEvent | LambdaAlbEvent {
  const bytes = typeof signed.body === 'string' ? encoder.encode(signed.body) : signed.body;
  const base64 = options.base64 ?? false;
  const body = base64 ? toBase64(bytes) : new TextDecoder().decode(bytes);
  const request = { method: options.method ?? 'POST', path: options.path ?? '/webhook', body, base64 };
  const headers = { ...signed.headers, 'Content-Length': String(bytes.byteLength) };
  if (options.format === 'v1') return restApiEvent(headers, request);
  if (options.format === 'alb') return albEvent(headers, request, options.multiValueHeaders ?? false);
  return httpApiEvent(headers, request);
}

interface Request {
  method: string;
  path: string;
  body: string;
  base64: boolean;
}

const NOW = Date.UTC(2025, 10, 22, 8, 26, 40);
const HOST = 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com';
const FORWARDED = {
  Host: HOST,
  'X-Forwarded-For': '203.0.113.24',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Port': '443',
};

function restApiEvent(sent: Record<string, string>, request: Request): LambdaRestApiEvent {
  const headers = { ...FORWARDED, ...sent };
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  return {
    resource: request.path,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      authorizer: null,
      domainName: HOST,
      domainPrefix: 'a1b2c3d4e5',
      extendedRequestId: 'Uq3bYHw0DoEFfWg=',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.24',
        user: null,
        userAgent: sent['User-Agent'] ?? null,
        userArn: null,
      },
      path: `/prod${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: '0b7f3e52-5c1a-4f0e-9d3c-6a2b8e4f1c07',
      requestTime: '22/Nov/2025:08:26:40 +0000',
      requestTimeEpoch: NOW,
      resourceId: 'x7k2p9',
      resourcePath: request.path,
      stage: 'prod',
    },
    body: request.body === '' ? null : request.body,
    isBase64Encoded: request.base64,
  };
}

function httpApiEvent(sent: Record<string, string>, request: Request): LambdaHttpApiEvent {
  // Payload 2.0 lower-cases names and joins repeated headers with commas.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...FORWARDED, ...sent })) {
    const lower = name.toLowerCase();
    headers[lower] = lower in headers ? `${headers[lower]},${value}` : value;
  }
  return {
    version: '2.0',
    routeKey: `${request.method} ${request.path}`,
    rawPath: request.path,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: HOST,
      domainPrefix: 'a1b2c3d4e5',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.24',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: 'Uq3bYHw0DoEFfWg=',
      routeKey: `${request.method} ${request.path}`,
      stage: '$default',
      time: '22/Nov/2025:08:26:40 +0000',
      timeEpoch: NOW,
    },
    ...(request.body === '' ? {} : { body: request.body }),
    isBase64Encoded: request.base64,
  };
}

function albEvent(sent: Record<string, string>, request: Request, multi: boolean): LambdaAlbEvent {
  // An ALB lower-cases header names.
  const entries = Object.entries({ ...FORWARDED, ...sent }).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  const targetGroupArn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/webhook/0123456789abcdef';
  return {
    requestContext: { elb: { targetGroupArn } },
    httpMethod: request.method,
    path: request.path,
    ...(multi
      ? {
          multiValueQueryStringParameters: {},
          multiValueHeaders: Object.fromEntries(entries.map(([name, value]) => [name, [value]])),
        }
      : { queryStringParameters: {}, headers: Object.fromEntries(entries) }),
    body: request.body === '' ? null : request.body,
    isBase64Encoded: request.base64,
  };
}

/** Base64 without Node's Buffer, so the helper runs wherever the tests do. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
