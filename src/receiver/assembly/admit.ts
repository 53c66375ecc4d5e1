import { isWebhookError, WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import type { BodyInput } from '../../input/body.js';
import { digitsValue, type HeaderLookup, headerLookup } from '../../input/headers.js';
import { andThen, attempt, type MaybePromise } from '../../internal/maybe.js';
import type { HmacStream } from '../../crypto/provider.js';
import type { Admission, AdmittedRequest, BodyHasher, RequestHead } from '../admission.js';
import { type Answer, errorAnswer } from '../answers.js';
import { type Core, handleInput } from './handle-input.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportRejection } from '../hooks.js';
import { inspectDelivery } from '../inspection.js';
import { type GuardedTrace, startTrace } from '../guarded-trace.js';
import type { MatchedToken, TokenMatcher } from '../tokens/token-matcher.js';
import { type Admitted, type StreamedDigest, verifyDelivery } from '../verify-delivery.js';

/** Checks a request's head before its body is read: method, declared size, token (see `Receiver.admit`). */
export function admit(core: Core, head: RequestHead): Admission {
  const { config, options } = core;
  // The delivery starts here, before its body is read, so refusals on the head are counted too.
  const trace = options.instrumentation ? startTrace(options.instrumentation, config.now) : null;
  const refuse = (thrown: unknown, authenticated = false): Admission => ({
    admitted: false,
    answer: refusal(core, trace, head?.method, head?.headers, thrown),
    authenticated,
  });
  try {
    if (typeof head?.method !== 'string' || head.method.toUpperCase() !== 'POST') {
      return refuse(new WebhookError('method_not_allowed', `${String(head?.method)} is not POST`));
    }
    const headers = headerLookup(head.headers);
    const declared = Number(headers('content-length'));
    if (declared > config.maxBodyBytes) {
      return refuse(
        new WebhookError('payload_too_large', `Content-Length ${declared} is over maxBodyBytes ${config.maxBodyBytes}`),
        holdsToken(config.keeper, headers('authorization')),
      );
    }
    let matched: MatchedToken | undefined;
    try {
      // Undefined when only the body can settle it: check 2 then runs again with the body.
      matched = config.keeper.matchNow(headers('authorization'));
    } catch (thrown) {
      // With the ledger's `keepRefused`, a 401 has its body read to be kept (check 2 refuses it again then).
      if (!(isWebhookError(thrown) && core.ledger?.readsRefused(headers, thrown, head.headers))) throw thrown;
      return new Admittance(core, head.headers, { headers, matched: undefined }, trace, true);
    }
    return new Admittance(core, head.headers, { headers, matched }, trace);
  } catch (error) {
    return refuse(error);
  }
}

/**
 * Whether a request refused for its size came from the service: its 413 is then worth
 * delivering to a client that writes the whole body before reading, so the adapter discards
 * the body instead of cutting the connection. The answer stays 413 either way (check 1 first).
 */
function holdsToken(keeper: TokenMatcher, authorization: string | undefined): boolean {
  try {
    return keeper.matchNow(authorization) !== undefined;
  } catch {
    return false;
  }
}

/**
 * `admission.handle` for the adapter kit: with an admission this receiver made, the answer
 * comes back without a promise turn when the store and the handler are synchronous, so a
 * Node adapter writes it in the same turn as the body's last chunk, as a hand-written route
 * does (a write deferred by one turn cost about 1 % of a 1 KiB request's CPU in callgrind).
 * Any other admission (a wrapped receiver) goes through its public `handle`.
 */
export function handleAdmitted(
  admission: AdmittedRequest,
  body: BodyInput,
  handlers?: WebhookHandlers,
): MaybePromise<Answer> {
  return admission instanceof Admittance ? admission.handleNow(body, handlers) : admission.handle(body, handlers);
}

/**
 * The admission once check 2 is settled, for a request whose head could not settle it (a token
 * source being read, a tenant being looked up): the adapter kit awaits it before reading the
 * body, so an unknown token is refused (and the connection closed) without its body, as a
 * fixed token is on the head. Undefined when the head settled it, as it always does for a
 * fixed token: that path takes no promise turn. Never rejects.
 */
export function settledAdmission(admission: AdmittedRequest): Promise<Admission> | undefined {
  return admission instanceof Admittance ? admission.settle() : undefined;
}

/**
 * The header lookup the admission already built, so the kit reads a header without scanning
 * the headers again; undefined when the admission was made elsewhere.
 */
export function admittedLookup(admission: AdmittedRequest): HeaderLookup | undefined {
  return admission instanceof Admittance ? admission.lookup() : undefined;
}

/** An admitted request: one small object per request, its methods on the prototype. */
class Admittance implements AdmittedRequest {
  readonly admitted = true;
  private streamed: StreamedHmac | undefined;
  private settling: boolean;
  // The ledger's time of receipt: the head, before the body is read.
  private readonly receivedAt: number | undefined;
  constructor(
    private readonly core: Core,
    private readonly headers: RequestHead['headers'],
    private checked: Admitted,
    private readonly trace: GuardedTrace | null = null,
    // A request refused for its token, admitted only for the ledger to keep its body: nothing to settle.
    readingRefused = false,
  ) {
    this.settling = readingRefused;
    this.receivedAt = core.ledger ? core.config.now() : undefined;
  }

  /** See {@link settledAdmission}: check 2 again, now able to wait, once per admission. */
  settle(): Promise<Admission> | undefined {
    if (this.checked.matched !== undefined || this.settling) return undefined;
    this.settling = true;
    const { headers } = this.checked;
    return new Promise<MatchedToken>((matched) =>
      matched(this.core.config.keeper.match(headers('authorization'))),
    ).then(
      (matched): Admission => {
        this.checked = { headers, matched };
        return this;
      },
      (thrown): Admission => {
        // An unknown token during a rotation window is kept, which takes its body: read on,
        // unless the kept requests refuse it on its head (it would not be kept: no body read).
        const refusal =
          isWebhookError(thrown) && thrown.code === 'token_rotating' ? this.core.kept.head(this.headers) : thrown;
        if (refusal === undefined) return this;
        // With the ledger's `keepRefused`, a 401 is read on to be kept, as on the head.
        if (isWebhookError(refusal) && this.core.ledger?.readsRefused(headers, refusal, this.headers)) return this;
        return { admitted: false, answer: this.refuse(refusal), authenticated: false };
      },
    );
  }

  handle(body: BodyInput, handlers?: WebhookHandlers): Promise<Answer> {
    return Promise.resolve(this.handleNow(body, handlers));
  }

  /** {@link handle} without the promise when the store and the handler answer synchronously. */
  handleNow(body: BodyInput, handlers?: WebhookHandlers): MaybePromise<Answer> {
    const input = { headers: this.headers, body };
    const { trace, receivedAt } = this;
    return handleInput(this.core, { input, handlers, admitted: this.takeStreamed(), trace, receivedAt });
  }

  /** The request's headers by lower-case name, through the lookup the admission built. */
  lookup(): HeaderLookup {
    return this.checked.headers;
  }

  bodyHasher(): BodyHasher | undefined {
    const timestamp = this.checked.headers('x-service-timestamp');
    // A timestamp that check 3 refuses gets no hasher: hashing a body bound for a 403 is waste.
    if (timestamp === undefined || digitsValue(timestamp) === undefined) return undefined;
    const stream = this.checked.matched?.key.hmac.stream?.(`${timestamp}.`);
    this.streamed = stream ? new StreamedHmac(stream, timestamp) : undefined;
    return this.streamed;
  }

  /** What was checked, with the streamed HMAC if there is one: it is good for one verification. */
  private takeStreamed(): Admitted {
    const streamed = this.streamed;
    if (!streamed) return this.checked;
    this.streamed = undefined;
    return { headers: this.checked.headers, matched: this.checked.matched, streamed };
  }

  verify(body: BodyInput): Promise<{ event: WebhookEvent } | { answer: Answer }> {
    const input = { headers: this.headers, body };
    const admitted = this.takeStreamed();
    const refused = (thrown: unknown): { event: WebhookEvent } | { answer: Answer } => ({
      answer: this.refuse(thrown),
    });
    const { trace } = this;
    trace?.verifying();
    return Promise.resolve(
      attempt(
        () =>
          andThen(
            verifyDelivery(this.core.config, input, admitted),
            (event): { event: WebhookEvent } => {
              // Handed to the host's own route: the receiver's part of the delivery ends here.
              trace?.verified(event);
              trace?.end({ outcome: 'verified' });
              return { event };
            },
            refused,
          ),
        refused,
      ),
    );
  }

  refuse(thrown: unknown): Answer {
    return refusal(this.core, this.trace, 'POST', this.headers, thrown, this.receivedAt);
  }
}

/**
 * Both paths of an admission refuse alike (on the head, or once admitted: a failed `verify`, a
 * fault the adapter found reading the body), so a refusal is reported, traced and inspected
 * the same way wherever it happens. `inspect` gets no body: the receiver may not have read it.
 */
function refusal(
  core: Core,
  trace: GuardedTrace | null,
  method: string | undefined,
  headers: unknown,
  thrown: unknown,
  receivedAt?: number,
): Answer {
  const { options, config } = core;
  const error = reportRejection(options, thrown, headers);
  trace?.endRefused(error, headers);
  const answer = errorAnswer(error);
  core.ledger?.refused({ headers, answer, receivedAt: receivedAt ?? config.now() });
  inspectDelivery(options, config.now, {
    receivedAt: config.now(),
    method,
    headers,
    body: undefined,
    answer,
    error,
  });
  return answer;
}

/**
 * A provider's streamed HMAC, counting what it was fed so verification can tell it covered the
 * whole body. The text is decoded once, whole, after the match: decoding chunk by chunk as they
 * arrived cost 2.3× the instructions of the whole-body decoder on a 256 KiB ASCII body and 1.7×
 * on mixed Latin/CJK text (callgrind, decode + JSON.parse), since a streaming TextDecoder has
 * neither node:buffer's ASCII path nor its UTF-16 transcode.
 */
class StreamedHmac implements BodyHasher, StreamedDigest {
  length = 0;
  constructor(
    private readonly stream: HmacStream,
    readonly timestamp: string,
  ) {}

  update(chunk: Uint8Array): void {
    this.length += chunk.byteLength;
    this.stream.update(chunk);
  }

  matches(expected: Uint8Array): boolean {
    return this.stream.matches(expected);
  }
}
