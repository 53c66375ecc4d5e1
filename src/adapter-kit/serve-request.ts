import type { WebhookEvent } from '../events/types.js';
import { isThenable } from '../internal/maybe.js';
import type { Admission, RefusedRequest } from '../receiver/admission.js';
import { handleAdmitted, settledAdmission } from '../receiver/assembly/admit.js';
import type { Answer } from '../receiver/answers.js';
import type { Receiver } from '../receiver/assembly/create-receiver.js';
import type { WebhookHandlers } from '../receiver/handlers.js';
import { type HttpAnswer, toHttp } from './http-answer.js';
import type { AdapterRequest } from './adapter-request.js';
import { type Read, readRequest } from './read-request.js';

/**
 * All HTTP logic every adapter shares, so an adapter only translates: the receiver's
 * admission of the head (method, declared size, token), bounded body reading, then the
 * handling. Every outcome, a throwing body reader included, is an answer; it rejects only on
 * a throw where nothing should throw (a host object's getter, say).
 *
 * @example
 * ```ts
 * const answer = await serveRequest(receiver, { method: req.method, headers: req.headers, body: () => req }, handlers);
 * res.writeHead(answer.status, answer.headers).end(answer.text);
 * ```
 * @group Adapter kit
 */
export function serveRequest(
  receiver: Receiver,
  request: AdapterRequest,
  handlers?: WebhookHandlers,
): Promise<HttpAnswer> {
  return new Promise((next, fail) => serve({ receiver, request, handlers, next, fail }));
}

/**
 * Options of {@link answerRequest}: the handlers, and how the host writes an answer.
 * @group Adapter kit
 */
export interface AnswerRequestOptions {
  handlers?: WebhookHandlers;
  /** Writes the answer; called once. */
  send(answer: HttpAnswer): void;
}

/**
 * {@link serveRequest} for a host that writes the answer itself (a Node response): `send` is
 * called as soon as the answer is known. When the body is at hand or arrives as Node stream
 * events, and the dedup store and the handler are synchronous, that is in the same turn as
 * the body's last chunk, as in a hand-written route; a promise would defer the write by a
 * turn, which costs a Node server measurably more per request. The promise settles once
 * `send` has run, and rejects only if something threw where nothing should (`send` included).
 *
 * @example
 * ```ts
 * createServer((req, res) => {
 *   answerRequest(receiver, nodeAdapterRequest(req), { handlers, send: (answer) => sendNodeAnswer(req, res, answer) });
 * });
 * ```
 * @group Adapter kit
 */
export function answerRequest(
  receiver: Receiver,
  request: AdapterRequest,
  options: AnswerRequestOptions,
): Promise<void> {
  const { handlers, send } = options;
  return new Promise((done, fail) => {
    const next = (answer: HttpAnswer): void => {
      send(answer);
      done();
    };
    serve({ receiver, request, handlers, next, fail });
  });
}

/** One request being served, and where its answer goes. */
interface Serving {
  receiver: Receiver;
  request: AdapterRequest;
  handlers: WebhookHandlers | undefined;
  next(answer: HttpAnswer): void;
  fail(error: unknown): void;
}

/**
 * Admits, reads and handles, handing the answer on without a promise turn wherever none is
 * needed. A token the head could not settle (a source being read, a tenant being looked up) is
 * settled before the body is read, so an unknown one is refused without its body.
 */
function serve(serving: Serving): void {
  const { receiver, request, fail } = serving;
  try {
    const admission = receiver.admit(request);
    const settling = admission.admitted ? settledAdmission(admission) : undefined;
    if (settling) settling.then((settled) => carryOn(serving, settled), fail);
    else carryOn(serving, admission);
  } catch (error) {
    fail(error);
  }
}

/** Answers a refused head, or reads the admitted request's body and handles it. */
function carryOn(serving: Serving, admission: Admission): void {
  const { receiver, request, handlers, fail } = serving;
  // `next` can be the host's own writer: a throw there is reported through `fail`.
  const next = (http: HttpAnswer): void => {
    try {
      serving.next(http);
    } catch (error) {
      fail(error);
    }
  };
  const answered = (answer: Answer): void => {
    try {
      serving.next(toHttp(answer));
    } catch (error) {
      fail(error);
    }
  };
  try {
    if (!admission.admitted) return void next(refusedHead(receiver, admission));
    const handle = (read: Read): void => {
      if ('answer' in read) return void next(read.answer);
      let answer: ReturnType<typeof handleAdmitted>;
      try {
        answer = handleAdmitted(admission, read.bytes, handlers);
      } catch (error) {
        return void fail(error);
      }
      if (isThenable(answer)) answer.then(answered, fail);
      else answered(answer);
    };
    readRequest({ receiver, admission, request, next: handle, fail });
  } catch (error) {
    fail(error);
  }
}

/**
 * Like {@link serveRequest} but stops after verification, for middleware that lets the user
 * write the response. No dedup runs here; a refusal is reported to `onRejected`.
 *
 * @example
 * ```ts
 * const result = await verifyRequest(receiver, { method: 'POST', headers: request.headers, body: () => request });
 * if ('event' in result) console.log(result.event.type);
 * ```
 * @group Adapter kit
 */
export async function verifyRequest(
  receiver: Receiver,
  request: AdapterRequest,
): Promise<{ event: WebhookEvent } | { answer: HttpAnswer }> {
  const admitted = receiver.admit(request);
  const settling = admitted.admitted ? settledAdmission(admitted) : undefined;
  const admission = settling ? await settling : admitted;
  if (!admission.admitted) return { answer: refusedHead(receiver, admission) };
  const read = await new Promise<Read>((next, fail) => readRequest({ receiver, admission, request, next, fail }));
  if ('answer' in read) return read;
  const verified = await admission.verify(read.bytes);
  return 'event' in verified ? verified : { answer: toHttp(verified.answer) };
}

/** A refusal on the head alone: the connection closes, after discarding the body if the service sent it. */
function refusedHead(receiver: Receiver, refused: RefusedRequest): HttpAnswer {
  return toHttp(refused.answer, {
    after: refused.authenticated ? 'discard' : 'close',
    maxBodyBytes: receiver.maxBodyBytes,
  });
}
