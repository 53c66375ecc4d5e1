import type { WebhookEvent } from '../events/types.js';
import { andThen, attempt } from '../internal/maybe.js';
import { type Answer, errorAnswer } from './answers.js';
import type { VerifyConfig } from './config.js';
import type { WebhookHandlers } from './handlers.js';
import { reportRejection } from './hooks.js';
import { inspectDelivery } from './inspection.js';
import type { ReceiverOptions } from './options.js';
import type { Pipeline } from './pipeline.js';
import { type Admitted, type DeliveryInput, verifyDelivery } from './verify-delivery.js';

/** What one receiver's requests share, built once by `createReceiver`. */
export interface Core {
  config: VerifyConfig;
  options: ReceiverOptions;
  pipeline: Pipeline;
}

export interface HandleInput {
  input: DeliveryInput;
  handlers: WebhookHandlers | undefined;
  admitted?: Admitted;
}

/** Verifies and handles one delivery; never throws, synchronous where the store and handler are. */
export function handleInput(core: Core, { input, handlers, admitted }: HandleInput) {
  if (core.options.inspect) return inspected(core, { input, handlers, admitted });
  const refused = (thrown: unknown): Answer => errorAnswer(reportRejection(core.options, thrown, headersOf(input)));
  return attempt(
    () => andThen(verifyDelivery(core.config, input, admitted), (event) => core.pipeline(event, handlers), refused),
    refused,
  );
}

/** {@link handleInput} with every delivery handed to the `inspect` option: the slower path, for development. */
function inspected(core: Core, { input, handlers, admitted }: HandleInput) {
  const receivedAt = core.config.now();
  const seen: { event?: WebhookEvent; error?: unknown } = {};
  const refused = (thrown: unknown): Answer =>
    errorAnswer((seen.error = reportRejection(core.options, thrown, headersOf(input))));
  const run = (event: WebhookEvent) => {
    seen.event = event;
    return core.pipeline(event, handlers);
  };
  return andThen(
    attempt(() => andThen(verifyDelivery(core.config, input, admitted), run, refused), refused),
    (answer) => {
      const { headers, body } = (typeof input === 'object' && input !== null ? input : {}) as Partial<DeliveryInput>;
      inspectDelivery(core.options, core.config.now, { receivedAt, method: 'POST', headers, body, answer, ...seen });
      return answer;
    },
  );
}

/** Headers for the rejection hook; an input whose getter throws was already refused and must not throw again. */
export function headersOf(input: unknown): unknown {
  try {
    return (input as Partial<DeliveryInput> | null | undefined)?.headers;
  } catch {
    return undefined;
  }
}
