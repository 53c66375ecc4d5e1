import { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import type { BodyInput } from '../input/body.js';
import { headerLookup } from '../input/headers.js';
import { andThen, attempt } from '../internal/maybe.js';
import type { Admission, AdmittedRequest, RequestHead } from './admission.js';
import { type Answer, errorAnswer } from './answers.js';
import { type Core, handleInput } from './handle-input.js';
import type { WebhookHandlers } from './handlers.js';
import { reject } from './hooks.js';
import { inspectDelivery } from './inspection.js';
import { matchToken } from './token.js';
import { type Admitted, verifyDelivery } from './verify-delivery.js';

/** Checks a request's head before its body is read: method, declared size, token (see `Receiver.admit`). */
export function admit(core: Core, head: RequestHead): Admission {
  const { config, options } = core;
  const refuse = (thrown: unknown): Admission => {
    const error = reject(options, thrown, head?.headers);
    const answer = errorAnswer(error);
    const receivedAt = config.now();
    inspectDelivery(options, config.now, {
      receivedAt,
      method: head?.method,
      headers: head?.headers,
      body: undefined,
      answer,
      error,
    });
    return { admitted: false, answer };
  };
  try {
    if (typeof head?.method !== 'string' || head.method.toUpperCase() !== 'POST') {
      return refuse(new WebhookError('method_not_allowed', `${String(head?.method)} is not POST`));
    }
    const headers = headerLookup(head.headers);
    const declared = Number(headers('content-length'));
    if (declared > config.maxBodyBytes) {
      return refuse(
        new WebhookError('payload_too_large', `Content-Length ${declared} is over maxBodyBytes ${config.maxBodyBytes}`),
      );
    }
    const tokenIndex = matchToken(config.tokens, headers('authorization'));
    return new Admittance(core, head.headers, { headers, tokenIndex });
  } catch (error) {
    return refuse(error);
  }
}

/** An admitted request: one small object per request, its methods on the prototype. */
class Admittance implements AdmittedRequest {
  readonly admitted = true;
  constructor(
    private readonly core: Core,
    private readonly headers: RequestHead['headers'],
    private readonly checked: Admitted,
  ) {}

  handle(body: BodyInput, handlers?: WebhookHandlers): Promise<Answer> {
    const input = { headers: this.headers, body };
    return Promise.resolve(handleInput(this.core, { input, handlers, admitted: this.checked }));
  }

  verify(body: BodyInput): Promise<{ event: WebhookEvent } | { answer: Answer }> {
    const input = { headers: this.headers, body };
    const refused = (thrown: unknown): { event: WebhookEvent } | { answer: Answer } => ({
      answer: this.refuse(thrown),
    });
    return Promise.resolve(
      attempt(
        () =>
          andThen(
            verifyDelivery(this.core.config, input, this.checked),
            (event): { event: WebhookEvent } => ({ event }),
            refused,
          ),
        refused,
      ),
    );
  }

  refuse(thrown: unknown): Answer {
    const { options, config } = this.core;
    const error = reject(options, thrown, this.headers);
    const answer = errorAnswer(error);
    const receivedAt = config.now();
    inspectDelivery(options, config.now, {
      receivedAt,
      method: 'POST',
      headers: this.headers,
      body: undefined,
      answer,
      error,
    });
    return answer;
  }
}
