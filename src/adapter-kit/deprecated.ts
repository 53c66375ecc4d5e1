/**
 * The adapter kit's names as the core entry exported them before `webhook-cms-receiver/adapter-kit`
 * existed. Kept for one minor version so adapters written against 0.2 still build; each is the
 * kit's own function or type under a deprecated declaration (TypeScript ignores `@deprecated` on a
 * re-export, so the editor would not warn).
 *
 * @module
 */
import * as kit from './index.js';

/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `answerRequest`. */
export const answerRequest = kit.answerRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `byteLimitText`. */
export const byteLimitText = kit.byteLimitText;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `errorHttpAnswer`. */
export const errorHttpAnswer = kit.errorHttpAnswer;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `exchangeHandler`. */
export const exchangeHandler = kit.exchangeHandler;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `exchangeVerifier`. */
export const exchangeVerifier = kit.exchangeVerifier;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `forwardedHeaders`. */
export const forwardedHeaders = kit.forwardedHeaders;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `handedBody`. */
export const handedBody = kit.handedBody;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `isFetchBody`. */
export const isFetchBody = kit.isFetchBody;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `isFetchRequest`. */
export const isFetchRequest = kit.isFetchRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `logUnexpected`. */
export const logUnexpected = kit.logUnexpected;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `serveRequest`. */
export const serveRequest = kit.serveRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `statusLine`. */
export const statusLine = kit.statusLine;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `toFetchResponse`. */
export const toFetchResponse = kit.toFetchResponse;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `toHttp`. */
export const toHttp = kit.toHttp;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same function as the kit's `verifyRequest`. */
export const verifyRequest = kit.verifyRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AdapterExchange`. */
export type AdapterExchange<Answer, Refusal = Answer> = kit.AdapterExchange<Answer, Refusal>;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AdapterRequest`. */
export type AdapterRequest = kit.AdapterRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `Admission`. */
export type Admission = kit.Admission;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AdmittedRequest`. */
export type AdmittedRequest = kit.AdmittedRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AfterAnswer`. */
export type AfterAnswer = kit.AfterAnswer;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AlreadyParsed`. */
export type AlreadyParsed = kit.AlreadyParsed;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `AnswerRequestOptions`. */
export type AnswerRequestOptions = kit.AnswerRequestOptions;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `Base64Body`. */
export type Base64Body = kit.Base64Body;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `BodyHasher`. */
export type BodyHasher = kit.BodyHasher;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `BodyStream`. */
export type BodyStream = kit.BodyStream;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `ContextRunner`. */
export type ContextRunner = kit.ContextRunner;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `DiscardLimits`. */
export type DiscardLimits = kit.DiscardLimits;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `ExchangeBinding`. */
export type ExchangeBinding<Input, Answer, Refusal = Answer> = kit.ExchangeBinding<Input, Answer, Refusal>;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `FetchBody`. */
export type FetchBody = kit.FetchBody;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `FetchRequest`. */
export type FetchRequest = kit.FetchRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `HttpAnswer`. */
export type HttpAnswer = kit.HttpAnswer;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `RefusedRequest`. */
export type RefusedRequest = kit.RefusedRequest;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `RequestBody`. */
export type RequestBody = kit.RequestBody;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `RequestHead`. */
export type RequestHead = kit.RequestHead;
/** @deprecated Import from 'webhook-cms-receiver/adapter-kit'. The same type as the kit's `ToHttpOptions`. */
export type ToHttpOptions = kit.ToHttpOptions;
