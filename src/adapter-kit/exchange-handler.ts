import { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import type { Receiver } from '../receiver/assembly/create-receiver.js';
import type { WebhookHandlers } from '../receiver/handlers.js';
import { errorHttpAnswer, type HttpAnswer } from './http-answer.js';
import { logUnexpected } from './log-unexpected.js';
import type { AdapterRequest } from './adapter-request.js';
import { serveRequest, verifyRequest } from './serve-request.js';

/**
 * One request of a host, translated for the kit, and how the host takes answers to it.
 * @group Adapter kit
 */
export interface AdapterExchange<Answer, Refusal = Answer> {
  request: AdapterRequest;
  /** The answer of `serveRequest` as the host wants it back from the handler. */
  answer(http: HttpAnswer): Answer;
  /** A refusal of `verifyRequest` as the route returns it itself (often the same function as `answer`). */
  refusal(http: HttpAnswer): Refusal;
}

/**
 * How an adapter meets a host that calls a handler with one input and takes what it returns
 * as the answer (h3, AWS Lambda, a Fetch runtime): all {@link exchangeHandler} and
 * {@link exchangeVerifier} need to build the adapter's two functions.
 * @group Adapter kit
 */
export interface ExchangeBinding<Input, Answer, Refusal = Answer> {
  /** The adapter's name, in the log line of an unexpected failure: `unexpected failure in the <name> adapter`. */
  name: string;
  /**
   * The input translated; or, for an input that is no request the adapter can read, the
   * error to answer (a host fault, logged with its reason). A throw is answered 500.
   */
  exchange(input: Input): AdapterExchange<Answer, Refusal> | WebhookError;
  /** The answer where no exchange can write it: the input was no request, or translating it threw. */
  fallback(http: HttpAnswer): Answer & Refusal;
}

/**
 * The adapter's `webhookHandler`: translates the input, serves it and returns the answer as
 * the host wants it. Never rejects: an input that is no request and any unexpected throw are
 * logged and answered through `fallback`.
 *
 * @example
 * ```ts
 * const binding: ExchangeBinding<Request, Response> = {
 *   name: 'Bun',
 *   exchange: (request) => ({
 *     request: { method: request.method, headers: request.headers, body: () => request },
 *     answer: toFetchResponse,
 *     refusal: toFetchResponse,
 *   }),
 *   fallback: toFetchResponse,
 * };
 * Bun.serve({ fetch: exchangeHandler(binding, receiver, handlers) });
 * ```
 * @group Adapter kit
 */
export function exchangeHandler<Input, Answer, Refusal>(
  binding: ExchangeBinding<Input, Answer, Refusal>,
  receiver: Receiver,
  handlers?: WebhookHandlers,
): (input: Input) => Promise<Answer> {
  return (input) =>
    exchanging(
      binding,
      input,
      async (exchange) => exchange.answer(await serveRequest(receiver, exchange.request, handlers)),
      (answer) => answer,
    );
}

/**
 * The adapter's `verifyWebhook`: resolves to the verified event, or to the refusal for the
 * route to return, under `key` (`response` for Fetch hosts, `result` for Lambda). No dedup
 * runs here. Never rejects, as {@link exchangeHandler}.
 *
 * @example
 * ```ts
 * const verified = await exchangeVerifier(binding, receiver, 'response')(request);
 * if ('response' in verified) return verified.response;
 * ```
 * @group Adapter kit
 */
export function exchangeVerifier<Input, Answer, Refusal, Key extends string>(
  binding: ExchangeBinding<Input, Answer, Refusal>,
  receiver: Receiver,
  key: Key,
): (input: Input) => Promise<{ event: WebhookEvent } | { [K in Key]: Refusal }> {
  const refused = (refusal: Refusal) => ({ [key]: refusal }) as { [K in Key]: Refusal };
  return (input) =>
    exchanging(
      binding,
      input,
      async (exchange) => {
        const verified = await verifyRequest(receiver, exchange.request);
        return 'event' in verified ? verified : refused(exchange.refusal(verified.answer));
      },
      refused,
    );
}

/** Translates the input and runs `use` on it; what cannot be answered through the exchange goes through `fallback`. */
async function exchanging<Input, Answer, Refusal, R>(
  binding: ExchangeBinding<Input, Answer, Refusal>,
  input: Input,
  use: (exchange: AdapterExchange<Answer, Refusal>) => Promise<R>,
  wrap: (answer: Answer & Refusal) => R,
): Promise<R> {
  const fail = (error: WebhookError, logged: unknown): R => {
    logUnexpected(logged);
    return wrap(binding.fallback(errorHttpAnswer(error)));
  };
  try {
    const exchange = binding.exchange(input);
    // Logged as its reason: the error's own message is the public text, which names no fix.
    if (exchange instanceof WebhookError) return fail(exchange, new Error(exchange.reason));
    return await use(exchange);
  } catch (error) {
    return fail(new WebhookError('internal_error', `unexpected failure in the ${binding.name} adapter`), error);
  }
}
