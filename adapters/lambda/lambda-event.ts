import type { AdapterRequest, AlreadyParsed, HeadersInput, RequestBody } from 'webhook-cms-receiver';

/**
 * Headers with one value each: API Gateway REST APIs and HTTP API payload 1.0 (the last copy
 * of a repeated header), ALB without multi-value headers, and payload 2.0 (repeated headers
 * joined with commas).
 */
export interface LambdaHeaders {
  readonly [name: string]: string | undefined;
}

/** Every copy of every header: REST APIs and payload 1.0 always, ALB with multi-value headers on. */
export interface LambdaMultiValueHeaders {
  readonly [name: string]: readonly string[] | undefined;
}

/**
 * An API Gateway REST API proxy event, an HTTP API payload 1.0 event or an ALB event: the
 * fields this adapter reads. `APIGatewayProxyEvent` and `ALBEvent` from `@types/aws-lambda`
 * fit it.
 */
export interface LambdaEventV1 {
  httpMethod: string;
  headers?: LambdaHeaders | null;
  multiValueHeaders?: LambdaMultiValueHeaders | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  /** `{ elb: { targetGroupArn } }` for ALB; API Gateway's request context otherwise. */
  requestContext?: object;
}

/**
 * An HTTP API payload 2.0 or Lambda Function URL event: the fields this adapter reads.
 * `APIGatewayProxyEventV2` and `LambdaFunctionURLEvent` from `@types/aws-lambda` fit it.
 */
export interface LambdaEventV2 {
  version: string;
  headers?: LambdaHeaders;
  /** Payload 2.0 moves the `Cookie` header here. */
  cookies?: readonly string[];
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string } };
}

/**
 * Every HTTP event this adapter answers. Any other event (a REST API non-proxy integration,
 * whose mapping template rebuilt the request) is answered 500 `Server misconfigured`.
 */
export type LambdaHttpEvent = LambdaEventV1 | LambdaEventV2;

/** Which answer shape the event's source expects. */
export type EventSource = 'api-gateway-v1' | 'api-gateway-v2' | 'alb';

/** An event read for the adapter kit, and how to shape its answer. */
export interface ReadEvent {
  source: EventSource;
  request: AdapterRequest;
  /** ALB with multi-value headers on: the answer must use `multiValueHeaders` too. */
  multiValue: boolean;
}

/** What to do about it, in API Gateway's own words. */
export const MAPPING_TEMPLATE_FIX =
  'Use the Lambda proxy integration for the webhook method (the event then carries the body as received), ' +
  'or a mapping template that passes the raw bytes: "body": "$util.base64Encode($input.body)", ' +
  '"isBase64Encoded": true, "httpMethod": "$context.httpMethod" and every request header under "headers".';

const PARSED_BODY: AlreadyParsed = {
  alreadyParsed:
    'a REST API mapping template ($input.json or $input.path) or an invoker that put a parsed object in event.body',
  fix: MAPPING_TEMPLATE_FIX,
};

type Untrusted = Record<string, unknown>;

const isRecord = (value: unknown): value is Untrusted => typeof value === 'object' && value !== null;

/**
 * Reads a Lambda event as the adapter kit wants it, or undefined when it is no proxy event at
 * all. The event comes from the platform, but is checked field by field: a hand-written
 * mapping template or a test invocation can put anything anywhere.
 */
export function readEvent(event: unknown): ReadEvent | undefined {
  if (!isRecord(event)) return undefined;
  const context = isRecord(event.requestContext) ? event.requestContext : undefined;
  const http = isRecord(context?.http) ? context.http : undefined;
  if (http && typeof http.method === 'string') {
    const request = { method: http.method, headers: headersV2(event), body: () => bodyOf(event) };
    return { source: 'api-gateway-v2', request, multiValue: false };
  }
  if (typeof event.httpMethod !== 'string') return undefined;
  // Every copy where the source kept them, so a repeated Authorization is refused as on every adapter.
  // An empty multiValueHeaders beside filled headers (test invokers, some proxies) holds nothing.
  const multiValue = isRecord(event.multiValueHeaders) && Object.keys(event.multiValueHeaders).length > 0;
  const headers = (multiValue ? event.multiValueHeaders : isRecord(event.headers) ? event.headers : {}) as HeadersInput;
  const request = { method: event.httpMethod, headers, body: () => bodyOf(event) };
  if (isRecord(context?.elb)) return { source: 'alb', request, multiValue };
  return { source: 'api-gateway-v1', request, multiValue: false };
}

/** Payload 2.0 headers, with the cookies it moved out put back where hooks and the inspector look. */
function headersV2(event: Untrusted): HeadersInput {
  const headers = (isRecord(event.headers) ? event.headers : {}) as Record<string, string | undefined>;
  const cookies = Array.isArray(event.cookies) ? event.cookies.filter((item) => typeof item === 'string') : [];
  return cookies.length > 0 && headers.cookie === undefined ? { ...headers, cookie: cookies.join('; ') } : headers;
}

function bodyOf(event: Untrusted): RequestBody {
  const { body } = event;
  if (body === null || body === undefined) return new Uint8Array(0);
  if (typeof body !== 'string') return PARSED_BODY;
  return event.isBase64Encoded === true ? { base64: body } : body;
}
