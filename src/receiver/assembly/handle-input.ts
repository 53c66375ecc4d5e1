import type { WebhookEvent } from '../../events/types.js';
import type { WebhookError } from '../../errors/webhook-error.js';
import { andThen, attempt, type MaybePromise } from '../../internal/maybe.js';
import type { KeptRequests } from '../kept/kept-setup.js';
import type { LedgerHooks } from '../ledger/ledger-setup.js';
import type { TokenUsage } from '../token-usage.js';
import { type Answer, errorAnswer } from '../answers.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportRejection } from '../hooks.js';
import { inspectDelivery } from '../inspection.js';
import { type GuardedTrace, startTrace, tracedHandlers } from '../guarded-trace.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import { type Admitted, type DeliveryInput, verifyDelivery } from '../verify-delivery.js';

/** What one receiver's requests share, built once by `createReceiver`. */
export interface Core {
  config: VerifyConfig;
  options: ReceiverOptions;
  pipeline: Pipeline;
  /** Requests kept during a rotation window. */
  kept: KeptRequests;
  /** Warns while an older token still signs deliveries. */
  usage: TokenUsage;
  /** Records each answered request, with the `ledger` option. */
  ledger?: LedgerHooks;
}

export interface HandleInput {
  input: DeliveryInput;
  handlers: WebhookHandlers | undefined;
  admitted?: Admitted;
  /** The trace an admission started (null: it started none); undefined when this call starts the delivery. */
  trace?: GuardedTrace | null;
  /** When an admission saw the request's head; undefined when this call is the request's start. */
  receivedAt?: number;
}

/** What the ledger is told: the verified event, or the refusal. */
interface Seen {
  event?: WebhookEvent;
  refused?: boolean;
}

/** Verifies and handles one delivery; never throws, synchronous where the store and handler are. */
export function handleInput(core: Core, request: HandleInput) {
  core.kept.touch(request.handlers);
  if (core.ledger) return recorded(core, core.ledger, request);
  // The only cost of `inspect` and `instrumentation` when both are unset.
  if (core.options.inspect || core.options.instrumentation) return inspected(core, request);
  return plain(core, request);
}

function plain(core: Core, { input, handlers, admitted }: HandleInput, seen?: Seen) {
  const refused = (thrown: unknown) => {
    if (seen) seen.refused = true;
    return kept(core, input, reportRejection(core.options, thrown, headersOf(input)));
  };
  return attempt(
    () =>
      andThen(
        verifyDelivery(core.config, input, admitted),
        (event) => {
          if (seen) seen.event = event;
          core.usage.note(event);
          return core.pipeline(event, handlers, input);
        },
        refused,
      ),
    refused,
  );
}

/** {@link handleInput} with the answer recorded in the ledger once it is known. */
function recorded(core: Core, ledger: LedgerHooks, request: HandleInput): MaybePromise<Answer> {
  const receivedAt = request.receivedAt ?? core.config.now();
  if (request.handlers !== undefined) ledger.handlers = request.handlers;
  const seen: Seen = {};
  const answer =
    core.options.inspect || core.options.instrumentation ? inspected(core, request, seen) : plain(core, request, seen);
  return andThen(answer, (done) => {
    if (seen.event && !seen.refused) ledger.verified(seen.event, done, receivedAt);
    else {
      const { input } = request;
      const body = typeof input === 'object' && input !== null ? bodyOf(input) : undefined;
      ledger.refused({ headers: headersOf(input), body, answer: done, receivedAt });
    }
    return done;
  });
}

/**
 * {@link handleInput} with every delivery handed to the `inspect` option (for development)
 * and to the `instrumentation`'s trace: the slower path, taken only when one of them is set.
 */
function inspected(core: Core, { input, handlers, admitted, trace: admittedTrace }: HandleInput, told?: Seen) {
  const { options } = core;
  const trace = admittedTrace === undefined ? startTrace(options.instrumentation, core.config.now) : admittedTrace;
  if (!trace && !options.inspect) return plain(core, { input, handlers, admitted }, told);
  const receivedAt = core.config.now();
  const seen: { event?: WebhookEvent; error?: unknown } = {};
  const refused = (thrown: unknown): MaybePromise<Answer> => {
    const error = reportRejection(options, thrown, headersOf(input));
    seen.error = error;
    if (told) told.refused = true;
    trace?.endRefused(error, headersOf(input));
    return kept(core, input, error);
  };
  const run = (event: WebhookEvent) => {
    seen.event = event;
    if (told) told.event = event;
    core.usage.note(event);
    if (!trace) return core.pipeline(event, handlers, input);
    trace.verified(event);
    return core.pipeline(event, tracedHandlers(trace, handlers, event), input, trace);
  };
  trace?.verifying();
  return andThen(
    attempt(() => andThen(verifyDelivery(core.config, input, admitted), run, refused), refused),
    (answer) => {
      trace?.endAnswered(answer);
      if (!options.inspect) return answer;
      const { headers, body } = (typeof input === 'object' && input !== null ? input : {}) as Partial<DeliveryInput>;
      inspectDelivery(options, core.config.now, { receivedAt, method: 'POST', headers, body, answer, ...seen });
      return answer;
    },
  );
}

/**
 * The answer to a refusal; a request refused for an unknown token during a rotation window is
 * kept first, so a token that verifies it later has it processed.
 */
function kept(core: Core, input: DeliveryInput, error: WebhookError): MaybePromise<Answer> {
  const answer = errorAnswer(error);
  if (error.code !== 'token_rotating') return answer;
  return core.kept.keep(input).then(
    () => answer,
    () => answer,
  );
}

/** The body for the ledger; an input whose getter throws was already refused and must not throw again. */
function bodyOf(input: object): unknown {
  try {
    return (input as Partial<DeliveryInput>).body;
  } catch {
    return undefined;
  }
}

/** Headers for the rejection hook; an input whose getter throws was already refused and must not throw again. */
export function headersOf(input: unknown): unknown {
  try {
    return (input as Partial<DeliveryInput> | null | undefined)?.headers;
  } catch {
    return undefined;
  }
}
