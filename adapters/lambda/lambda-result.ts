import {
  type AdapterExchange,
  type AdapterRequest,
  forwardedHeaders,
  type HttpAnswer,
  statusLine,
} from 'webhook-cms-receiver/adapter-kit';

/**
 * What the handler resolves to: a proxy result every HTTP source of Lambda accepts.
 * `APIGatewayProxyResult`, `APIGatewayProxyStructuredResultV2` and `ALBResult` from
 * `@types/aws-lambda` all take it. For ALB it carries `statusDescription`, and its headers
 * are in `multiValueHeaders` when the event had them (ALB then ignores `headers`).
 */
export interface LambdaResult {
  statusCode: number;
  /** ALB only: the status line's text, e.g. `200 OK`. */
  statusDescription?: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

/**
 * The answer shape the event's source expects: `headers` for API Gateway and Function URLs
 * (and for an event no source was read from), the ALB's own with or without multi-value headers.
 */
export type ResultShape = 'headers' | 'alb' | 'alb-multi-value';

/** The answer in the shape the event's source expects. */
export function toLambdaResult(answer: HttpAnswer, shape: ResultShape = 'headers'): LambdaResult {
  // The gateway or load balancer owns the client's connection; API Gateway would only
  // rename a `Connection` header (x-amzn-Remapped-connection).
  const headers = forwardedHeaders(answer);
  const result: LambdaResult = { statusCode: answer.status, body: answer.text, isBase64Encoded: false };
  if (shape === 'headers') return { ...result, headers };
  const statusDescription = statusLine(answer.status);
  if (shape === 'alb') return { ...result, statusDescription, headers };
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  return { ...result, statusDescription, multiValueHeaders };
}

/** A request read from an event, answered in its source's shape whether served or only verified. */
export function lambdaExchange(request: AdapterRequest, shape: ResultShape): AdapterExchange<LambdaResult> {
  const answer = (http: HttpAnswer): LambdaResult => toLambdaResult(http, shape);
  return { request, answer, refusal: answer };
}
