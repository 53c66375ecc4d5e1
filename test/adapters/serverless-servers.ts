import { webhookHandler } from 'webhook-cms-receiver/lambda';
import { listen } from '../helpers/listen.js';
import { lambdaBridge } from './lambda-bridge.js';
import type { StartAdapter } from './servers.js';

/**
 * The Lambda adapter behind an HTTP API (payload 2.0) bridge: lower-case headers, repeated
 * ones joined with commas, JSON bodies as text.
 *
 * @example
 * ```ts
 * const { url, close } = await startLambdaHttpApi(receiver, handlers);
 * ```
 */
export const startLambdaHttpApi: StartAdapter = (receiver, handlers) =>
  listen(lambdaBridge(webhookHandler(receiver, handlers), { source: 'http-api' }));

/**
 * The Lambda adapter behind a REST API (payload 1.0) bridge with binary media type `*∕*`:
 * headers as sent plus `multiValueHeaders`, every body base64-encoded.
 *
 * @example
 * ```ts
 * const { url, close } = await startLambdaRestApi(receiver, handlers);
 * ```
 */
export const startLambdaRestApi: StartAdapter = (receiver, handlers) =>
  listen(lambdaBridge(webhookHandler(receiver, handlers), { source: 'rest-api', base64: true }));

/**
 * The Lambda adapter behind an ALB bridge with multi-value headers on.
 *
 * @example
 * ```ts
 * const { url, close } = await startLambdaAlb(receiver, handlers);
 * ```
 */
export const startLambdaAlb: StartAdapter = (receiver, handlers) =>
  listen(lambdaBridge(webhookHandler(receiver, handlers), { source: 'alb-multi-value' }));

/**
 * Every serverless adapter behind its HTTP → event bridge, by the name the suites print. The
 * platform buffers each body before the function runs, so none of them can refuse a request
 * before its body arrived (see the `buffersBody` trait).
 */
export const serverlessAdapters: Record<string, StartAdapter> = {
  'Lambda behind an HTTP API (payload 2.0)': startLambdaHttpApi,
  'Lambda behind a REST API (payload 1.0, base64 bodies)': startLambdaRestApi,
  'Lambda behind an ALB (multi-value headers)': startLambdaAlb,
};
