import { articleSyncPayload } from './factories.js';
import { RETRY_DELAYS_MS } from './deliver.js';
import { type SignedDelivery, signDelivery } from './sign-delivery.js';

/** The public text of a 503 `token_rotating`: the request was kept. */
const ROTATING = 'Token rotation in progress';

/** Sends one signed attempt somewhere and gives back its status: a URL's server, or `receiver.handle` in-process. */
export type DrillSend = (signed: SignedDelivery) => Promise<{ status: number; body?: unknown }>;

/** Options of {@link rotationDrill}. */
export interface RotationDrillOptions {
  /** The endpoint to deliver to; or give `send`. */
  url?: string;
  /** Sends one attempt, e.g. `(signed) => receiver.handle(signed, handlers)`; used instead of `url`. */
  send?: DrillSend;
  /** The token the service holds before it is regenerated. */
  oldToken: string;
  /** The token it holds after (the one "shown once"). */
  newToken: string;
  /** How many deliveries the stream carries (fresh `article.sync` payloads), or the payloads themselves. Default 20. */
  deliveries?: number | readonly object[];
  /** Index of the first delivery made after the user clicks Regenerate. Default: half-way. */
  regenerateAt?: number;
  /**
   * What the user does to update the receiver's secret (write the file the token source reads,
   * change the env var and restart the server, ...). Called once, before delivery `updateSecretAt`.
   */
  updateSecret: () => void | Promise<void>;
  /** Index of the delivery before which `updateSecret` runs. Default: three quarters of the way. */
  updateSecretAt?: number;
  /** Time between two deliveries of the stream, before scaling. Default 1000 ms. */
  intervalMs?: number;
  /**
   * After its 4 quick attempts (0, 2, 5, 10 s) the service's scheduler re-queues a failed
   * delivery, minutes apart: this many times. Default 3.
   */
  requeues?: number;
  /** The scheduler's interval, before scaling. Default 60 000 ms. */
  requeueMs?: number;
  /** Multiplies every delay, e.g. 0.01 in tests. Default 1: the service's own schedule. */
  timeScale?: number;
}

/** One delivery of the drill, as the service saw it. Tokens are named `old`/`new`, never shown. */
export interface DrillDelivery {
  deliveryId: string;
  /**
   * `delivered`: a 2xx; `refused`: a 401 or 403, never retried (lost); `gave-up`: every retry
   * failed (lost); `processed-from-kept`: refused or given up by the service, but answered 503
   * `token_rotating` on the way, so the receiver kept it and later processed it (not lost).
   */
  outcome: 'delivered' | 'refused' | 'gave-up' | 'processed-from-kept';
  /** `kept`: answered 503 `token_rotating`, so the receiver kept the request to process later. */
  attempts: Array<{ status: number | null; token: 'old' | 'new'; duplicate: boolean; kept: boolean }>;
}

/** What {@link rotationDrill} found. */
export interface RotationDrillResult {
  /** True when every delivery was delivered: nothing was lost to the rotation. */
  ok: boolean;
  deliveries: DrillDelivery[];
  /** The deliveries the service would have lost (its sync status then turns to `error`). */
  lost: DrillDelivery[];
  /**
   * The deliveries the service gave up on (or was refused) after a 503 `token_rotating`, which
   * the receiver kept and processed once a token verified them: the dashboard shows their sync
   * as `error`, but the site has them. Not in `lost`.
   */
  processedFromKept: DrillDelivery[];
}

/**
 * Simulates the service regenerating the token in the middle of a stream of deliveries, and
 * reports whether any was lost. The service switches every attempt (retries included) to the
 * new token the moment it is regenerated; a 401 or 403 is final; anything else is retried on
 * the service's schedule (2, 5, 10 s, then the scheduler), scaled by `timeScale`. A delivery
 * the service gave up on after a 503 `token_rotating` (so the receiver kept it) is sent once more
 * at the end, signed with the new token, as a re-send from the dashboard would be: answered as a
 * duplicate, it was processed from the kept requests (`processedFromKept`); otherwise it stays in
 * `lost` (and that re-send may have processed it). Check your handlers saw every `deliveryId` too.
 *
 * @example
 * ```ts
 * const drill = await rotationDrill({
 *   send: (signed) => receiver.handle(signed, handlers),
 *   oldToken, newToken,
 *   updateSecret: () => writeFile(tokenFile, `${newToken}\n${oldToken}\n`),
 *   timeScale: 0.01,
 * });
 * expect(drill.lost).toEqual([]);
 * ```
 */
export async function rotationDrill(options: RotationDrillOptions): Promise<RotationDrillResult> {
  const send = sender(options);
  const payloads =
    typeof options.deliveries === 'object'
      ? [...options.deliveries]
      : Array.from({ length: options.deliveries ?? 20 }, () => articleSyncPayload());
  const scale = options.timeScale ?? 1;
  const regenerateAt = options.regenerateAt ?? Math.floor(payloads.length / 2);
  const updateAt = options.updateSecretAt ?? Math.floor((payloads.length * 3) / 4);
  const service = { token: 'old' as 'old' | 'new' };
  const tokenOf = () => (service.token === 'old' ? options.oldToken : options.newToken);
  const delays = [
    ...RETRY_DELAYS_MS,
    ...Array.from({ length: options.requeues ?? 3 }, () => options.requeueMs ?? 60_000),
  ].map((ms) => ms * scale);

  const run = async (payload: object): Promise<DrillDelivery> => {
    const deliveryId = globalThis.crypto.randomUUID();
    const delivery: DrillDelivery = { deliveryId, outcome: 'gave-up', attempts: [] };
    for (let i = 0; ; i++) {
      const token = service.token;
      const status = await attemptOnce(send, signDelivery({ token: tokenOf(), payload, deliveryId }));
      delivery.attempts.push({ token, ...status });
      if (status.status !== null && status.status >= 200 && status.status < 300) delivery.outcome = 'delivered';
      else if (status.status === 401 || status.status === 403) delivery.outcome = 'refused';
      else if (i < delays.length) {
        await sleep(delays[i]!);
        continue;
      }
      return delivery;
    }
  };

  const running: Array<Promise<DrillDelivery>> = [];
  for (let i = 0; i < payloads.length; i++) {
    if (i === regenerateAt) service.token = 'new';
    if (i === updateAt) await options.updateSecret();
    running.push(run(payloads[i]!));
    if (i < payloads.length - 1) await sleep((options.intervalMs ?? 1000) * scale);
  }
  // A stream shorter than the update point still has its secret updated, after the last delivery.
  if (updateAt >= payloads.length) await options.updateSecret();
  const deliveries = await Promise.all(running);
  for (const [index, delivery] of deliveries.entries()) {
    if (delivery.outcome === 'delivered' || !delivery.attempts.some((attempt) => attempt.kept)) continue;
    if (
      await answeredAsDuplicate(
        send,
        { ...options, payload: payloads[index]!, deliveryId: delivery.deliveryId },
        delays,
      )
    )
      delivery.outcome = 'processed-from-kept';
  }
  const lost = deliveries.filter((d) => d.outcome !== 'delivered' && d.outcome !== 'processed-from-kept');
  const processedFromKept = deliveries.filter((d) => d.outcome === 'processed-from-kept');
  return { ok: lost.length === 0, deliveries, lost, processedFromKept };
}

/**
 * The re-send that tells a kept delivery processed from one lost: signed with the new token and
 * retried on the service's schedule while the receiver answers 409 or 5xx (the kept copy may be
 * running right then). True when it is answered as a duplicate.
 */
async function answeredAsDuplicate(
  send: DrillSend,
  resend: { newToken: string; payload: object; deliveryId: string },
  delays: readonly number[],
): Promise<boolean> {
  for (let i = 0; ; i++) {
    const signed = signDelivery({ token: resend.newToken, payload: resend.payload, deliveryId: resend.deliveryId });
    const answer = await attemptOnce(send, signed);
    if (answer.status !== null && answer.status < 300) return answer.duplicate;
    if (answer.status === 401 || answer.status === 403 || i >= delays.length) return false;
    await sleep(delays[i]!);
  }
}

function sender(options: RotationDrillOptions): DrillSend {
  if (options.send) return options.send;
  const { url } = options;
  if (typeof url !== 'string') throw new TypeError('rotationDrill: give the endpoint as `url`, or a `send` function.');
  return async ({ headers, body }) => {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
}

async function attemptOnce(send: DrillSend, signed: SignedDelivery) {
  try {
    const { status, body } = await send(signed);
    const answer = body as { duplicate?: unknown; error?: unknown } | null;
    const kept = status === 503 && answer?.error === ROTATING;
    return { status, duplicate: answer?.duplicate === true, kept };
  } catch {
    // No answer (unreachable, timeout): the service retries it like a 5xx.
    return { status: null, duplicate: false, kept: false };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
