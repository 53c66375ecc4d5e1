import { type HeadersInput, WebhookError } from 'webhook-cms-receiver';
import type { AdapterExchange, AlreadyParsed, RequestBody } from 'webhook-cms-receiver/adapter-kit';
import { type LambdaResult, lambdaExchange } from './lambda-result.js';

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

/** What to do about a body the REST API rebuilt, in API Gateway's own words. */
const MAPPING_TEMPLATE_FIX =
  'Use the Lambda proxy integration for the webhook method (the event then carries the body as received), ' +
  'or a mapping template that passes the raw bytes: "body": "$util.base64Encode($input.body)", ' +
  '"isBase64Encoded": true, "httpMethod": "$context.httpMethod" and every request header under "headers".';

const PARSED_BODY: AlreadyParsed = {
  alreadyParsed:
    'a REST API mapping template ($input.json or $input.path) or an invoker that put a parsed object in event.body',
  fix: MAPPING_TEMPLATE_FIX,
};

// No proxy event at all: answered 500, not a 401 the service would never retry.
const NOT_A_PROXY_EVENT = `the Lambda event is not an API Gateway proxy, HTTP API, Function URL or ALB event: a REST API mapping template (non-proxy integration) rebuilt the request, so the raw bytes the signature covers are gone. ${MAPPING_TEMPLATE_FIX}`;

type Untrusted = Record<string, unknown>;

const isRecord = (value: unknown): value is Untrusted => typeof value === 'object' && value !== null;

/**
 * Reads a Lambda event for the adapter kit, or the error to answer when it is no proxy event
 * at all. The event comes from the platform, but is checked field by field: a hand-written
 * mapping template or a test invocation can put anything anywhere.
 */
export function readEvent(input: unknown): AdapterExchange<LambdaResult> | WebhookError {
  const event: Untrusted = isRecord(input) ? input : {};
  const context = isRecord(event.requestContext) ? event.requestContext : {};
  const body = () => bodyOf(event);
  if (isRecord(context.http) && typeof context.http.method === 'string')
    return lambdaExchange({ method: context.http.method, headers: headersV2(event), body }, 'headers');
  if (typeof event.httpMethod !== 'string') return new WebhookError('body_already_parsed', NOT_A_PROXY_EVENT);
  // Every copy where the source kept them, so a repeated Authorization is refused as on every adapter.
  // An empty multiValueHeaders beside filled headers (test invokers, some proxies) holds nothing.
  const multiValue = isRecord(event.multiValueHeaders) && Object.keys(event.multiValueHeaders).length > 0;
  const headers = (multiValue ? event.multiValueHeaders : isRecord(event.headers) ? event.headers : {}) as HeadersInput;
  const shape = isRecord(context.elb) ? (multiValue ? 'alb-multi-value' : 'alb') : 'headers';
  return lambdaExchange({ method: event.httpMethod, headers, body }, shape);
}

/** Payload 2.0 headers, with the cookies it moved out put back where hooks and the inspector look. */
function headersV2(event: Untrusted): HeadersInput {
  const headers = (isRecord(event.headers) ? event.headers : {}) as Record<string, string | undefined>;
  const cookies = Array.isArray(event.cookies) ? event.cookies.filter((item) => typeof item === 'string') : [];
  return cookies.length > 0 && headers.cookie === undefined ? { ...headers, cookie: cookies.join('; ') } : headers;
}

function bodyOf(event: Untrusted): RequestBody {
  if (event.body === null || event.body === undefined) return new Uint8Array(0);
  if (typeof event.body !== 'string') return PARSED_BODY;
  return event.isBase64Encoded === true ? { base64: event.body } : event.body;
}
