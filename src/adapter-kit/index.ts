/**
 * `webhook-cms-receiver/adapter-kit`: everything an adapter for another framework needs, and all that the
 * shipped adapters use. An adapter only translates its framework's request into an
 * {@link AdapterRequest} and writes the {@link HttpAnswer} back; every status comes from the
 * receiver. See CONTRIBUTING.md, "Writing an adapter".
 *
 * @example
 * ```ts
 * import type { Receiver, WebhookHandlers } from 'webhook-cms-receiver';
 * import { serveRequest, toFetchResponse } from 'webhook-cms-receiver/adapter-kit';
 * const handler = (receiver: Receiver, handlers: WebhookHandlers) => async (request: Request) =>
 *   toFetchResponse(await serveRequest(receiver, { method: request.method, headers: request.headers, body: () => request }, handlers));
 * ```
 * @module webhook-cms-receiver/adapter-kit
 */
export type { Admission, AdmittedRequest, BodyHasher, RefusedRequest, RequestHead } from '../receiver/admission.js';
export {
  type AfterAnswer,
  type DiscardLimits,
  type HttpAnswer,
  type ToHttpOptions,
  byteLimitText,
  errorHttpAnswer,
  forwardedHeaders,
  statusLine,
  toFetchResponse,
  toHttp,
} from './http-answer.js';
export type { AdapterRequest, AlreadyParsed, Base64Body, RequestBody } from './adapter-request.js';
export type { ContextRunner } from './context-runner.js';
export { answerRequest, serveRequest, verifyRequest, type AnswerRequestOptions } from './serve-request.js';
export { type BodyStream, type FetchBody, type FetchRequest, isFetchBody, isFetchRequest } from './read-body.js';
export { handedBody } from './handed-body.js';
export { logUnexpected } from './log-unexpected.js';
export {
  type AdapterExchange,
  type ExchangeBinding,
  exchangeHandler,
  exchangeVerifier,
} from './exchange-handler.js';
