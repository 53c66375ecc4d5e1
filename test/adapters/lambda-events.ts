import { readFileSync } from 'node:fs';
import type { ALBEvent, APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';

/** The HTTP sources of Lambda, each with the event shape AWS documents for it. */
export type LambdaSource = 'rest-api' | 'http-api' | 'function-url' | 'alb' | 'alb-multi-value';

/** Every source, for `it.each`. */
export const lambdaSources: LambdaSource[] = ['rest-api', 'http-api', 'function-url', 'alb', 'alb-multi-value'];

/** A request as a client sent it: header lines in order (a name may repeat) and the raw body. */
export interface ClientRequest {
  method?: string;
  headers: [name: string, value: string][] | Record<string, string>;
  body: Uint8Array | string;
  /** Hand the body over base64-encoded, as API Gateway does for binary media types. */
  base64?: boolean;
}

/**
 * A recorded event from `test/fixtures/lambda/`: the shared vector "valid article.sync" as each
 * source hands it to the function (see the README there).
 *
 * @example
 * ```ts
 * const event = recordedEvent<APIGatewayProxyEventV2>('http-api-v2');
 * ```
 */
export function recordedEvent<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/lambda/${name}.json`, import.meta.url), 'utf8')) as T;
}

const TEMPLATES: Record<LambdaSource, string> = {
  'rest-api': 'api-gateway-rest',
  'http-api': 'http-api-v2',
  'function-url': 'function-url',
  alb: 'alb',
  'alb-multi-value': 'alb-multi-value',
};

/**
 * The event `source` would hand the function for `request`, built on that source's recorded
 * event: header casing, how repeated headers arrive and where cookies go follow AWS's docs.
 *
 * @example
 * ```ts
 * const event = lambdaEvent('rest-api', { headers: signed.headers, body: signed.body, base64: true });
 * ```
 */
export function lambdaEvent(source: LambdaSource, request: ClientRequest): unknown {
  const lines = Array.isArray(request.headers) ? request.headers : Object.entries(request.headers);
  const bytes = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : request.body;
  const base64 = request.base64 ?? false;
  const body = base64 ? Buffer.from(bytes).toString('base64') : Buffer.from(bytes).toString('utf8');
  const method = request.method ?? 'POST';
  const template = recordedEvent<Record<string, unknown>>(TEMPLATES[source]);
  if (source === 'http-api' || source === 'function-url') return v2Event(template, lines, method, body, base64);
  if (source === 'rest-api') return v1Event(template, lines, method, body, base64, { single: true, multi: true });
  const multi = source === 'alb-multi-value';
  return v1Event(template, lines, method, body, base64, { single: !multi, multi, lowerCase: true });
}

/** Payload 2.0: lower-case names, repeated headers joined with commas, cookies moved to `cookies`. */
function v2Event(
  template: Record<string, unknown>,
  lines: [string, string][],
  method: string,
  body: string,
  isBase64Encoded: boolean,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of lines) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') cookies.push(...value.split(/;\s*/));
    else headers[lower] = lower in headers ? `${headers[lower]},${value}` : value;
  }
  const event = template as unknown as APIGatewayProxyEventV2;
  const { http } = event.requestContext;
  const { cookies: _cookies, body: _body, ...rest } = event;
  return {
    ...rest,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    requestContext: { ...event.requestContext, http: { ...http, method } },
    ...(body === '' ? {} : { body }),
    isBase64Encoded,
  };
}

/**
 * Payload 1.0 and ALB: names as sent (ALB lower-cases them); `headers` keeps the last copy of a
 * repeated header, `multiValueHeaders` every copy.
 */
function v1Event(
  template: Record<string, unknown>,
  lines: [string, string][],
  method: string,
  body: string,
  isBase64Encoded: boolean,
  shape: { single: boolean; multi: boolean; lowerCase?: boolean },
): APIGatewayProxyEvent | ALBEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [sent, value] of lines) {
    const name = shape.lowerCase ? sent.toLowerCase() : sent;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  const { headers: _h, multiValueHeaders: _m, requestContext, ...rest } = template;
  // API Gateway repeats the method in its request context; ALB's has only the target group.
  const context = requestContext as Record<string, unknown>;
  return {
    ...(rest as unknown as APIGatewayProxyEvent),
    requestContext: ('httpMethod' in context ? { ...context, httpMethod: method } : context) as never,
    ...(shape.single ? { headers } : {}),
    ...(shape.multi ? { multiValueHeaders } : {}),
    httpMethod: method,
    body: body === '' ? null : body,
    isBase64Encoded,
  };
}
