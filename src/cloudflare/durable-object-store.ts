import {
  type ClaimOutcome,
  type DedupClaim,
  type DedupStore,
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
} from 'webhook-cms-receiver';
import { storedClaim } from '../dedup/stored-ids.js';
import { positiveOption } from '../internal/positive.js';
import type { DurableObjectNamespaceLike } from './bindings.js';
import { type LedgerOp, type LedgerRequest, type LedgerResult, objectNameOf, PROTOCOL_VERSION } from './protocol.js';

/** Options of {@link durableObjectDedupStore}. */
export interface DurableObjectDedupStoreOptions {
  /** How long a claim holds without renewal before a crashed handler's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id, and an article's newest timestamp, are remembered. Default 72 h. */
  retentionMs?: number;
}

// The object reads only the body; the host names nothing real.
const CALL_URL = 'https://webhook-dedup.invalid/';

/**
 * Remembers deliveries in Durable Objects, so every instance of a Worker deduplicates as one:
 * the memory store's semantics, ordering included, with one `WebhookDedupObject` per delivery
 * id (per article when the receiver has `ordering: true`, so the stale check and the
 * one-delivery-per-article rule run where every delivery for the article meets). Each store
 * call is one call to the object, so the happy path is two (claim, complete). Leases run on
 * the object's clock and are renewed while the handler runs; `complete` records the delivery
 * unless another request took it over, and then reports the takeover. A failing object
 * throws, so the receiver answers 503 and the service retries.
 *
 * Needs no `nodejs_compat`. Bind the class as `WebhookDedupObject` (see its docs for the
 * wrangler.toml lines) and pass the binding.
 *
 * @example
 * ```ts
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { durableObjectDedupStore } from 'webhook-cms-receiver/cloudflare';
 * import { webhookHandler } from 'webhook-cms-receiver/fetch';
 * export { WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';
 *
 * export default {
 *   fetch(request: Request, env: { WEBHOOK_TOKEN: string; DEDUP: DurableObjectNamespace }) {
 *     const receiver = createReceiver({ token: env.WEBHOOK_TOKEN, ordering: true, dedup: durableObjectDedupStore(env.DEDUP) });
 *     return webhookHandler(receiver, handlers)(request);
 *   },
 * };
 * ```
 */
export function durableObjectDedupStore<Id>(
  namespace: DurableObjectNamespaceLike<Id>,
  options: DurableObjectDedupStoreOptions = {},
): DedupStore {
  if (typeof namespace?.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new TypeError(
      'durableObjectDedupStore: pass a Durable Object namespace binding, such as env.DEDUP, bound to ' +
        'WebhookDedupObject under [[durable_objects.bindings]] in wrangler.toml; got ' +
        `${namespace === null ? 'null' : typeof namespace}.`,
    );
  }
  const leaseMs = finiteOption(options.leaseMs, DEFAULT_LEASE_MS, 'leaseMs');
  const retentionMs = finiteOption(options.retentionMs, DEFAULT_RETENTION_MS, 'retentionMs');

  const call = async (op: LedgerOp, given: DedupClaim, extra: Partial<LedgerRequest> = {}): Promise<LedgerResult> => {
    // Storage keys hold at most 2 KiB and object names go through UTF-8: odd ids are hashed.
    const claim = await storedClaim(given);
    const stub = namespace.get(namespace.idFromName(objectNameOf(claim)));
    const request: LedgerRequest = { v: PROTOCOL_VERSION, op, claim: plain(claim), leaseMs, retentionMs, ...extra };
    const response = await stub.fetch(CALL_URL + op, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    return resultOf(op, response.status, await response.text());
  };

  return {
    leaseMs,
    ordering: true,
    async claim(claim) {
      return outcomeOf(await call('claim', claim), claim);
    },
    async renew(claim, lease) {
      return (await call('renew', claim, { lease })) === true;
    },
    async complete(claim, lease, answer) {
      return (await call('complete', claim, { lease, answer })) === true;
    },
    async release(claim, lease) {
      await call('release', claim, { lease });
    },
  };
}

/** Only the claim's own fields travel, whatever else the object passed in carries. */
function plain({ deliveryId, order }: DedupClaim): DedupClaim {
  return order ? { deliveryId, order: { articleId: order.articleId, timestamp: order.timestamp } } : { deliveryId };
}

function resultOf(op: LedgerOp, status: number, text: string): LedgerResult {
  let reply: { v?: unknown; result?: LedgerResult; error?: unknown } | undefined;
  try {
    reply = JSON.parse(text);
  } catch {
    reply = undefined;
  }
  if (status === 200 && reply?.v === PROTOCOL_VERSION && reply.result !== undefined) return reply.result;
  const why =
    typeof reply?.error === 'string'
      ? reply.error
      : `it answered ${status} without the WebhookDedupObject protocol. Is the binding's class_name ` +
        'WebhookDedupObject, exported from the Worker that declares the binding?';
  throw new Error(`durableObjectDedupStore failed to ${op}: ${why}`);
}

function outcomeOf(result: LedgerResult, claim: DedupClaim): ClaimOutcome {
  const outcome = result as ClaimOutcome | null;
  if (outcome?.state === 'claimed' && typeof outcome.lease === 'string') return outcome;
  if (outcome?.state === 'in-progress' || outcome?.state === 'done') return outcome;
  if (outcome?.state === 'stale' && claim.order && typeof outcome.newerTimestamp === 'number') return outcome;
  throw new Error(`durableObjectDedupStore: unexpected reply to claim: ${JSON.stringify(result)}`);
}

/** A positive option that also survives JSON and an alarm time: Infinity would arrive as null. */
function finiteOption(value: number | undefined, fallback: number, name: string): number {
  const checked = positiveOption(value, fallback, `durableObjectDedupStore: ${name}`);
  if (!Number.isFinite(checked))
    throw new RangeError(`durableObjectDedupStore: ${name} must be finite, got ${checked}; give a number of ms.`);
  return checked;
}
