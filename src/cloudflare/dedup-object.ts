import { describeThrown } from '../internal/describe.js';
import type { DurableObjectStateLike, DurableObjectStorageLike } from './bindings.js';
import { ClaimLedger } from './claim-ledger.js';
import { type LedgerReply, parseLedgerRequest, PROTOCOL_VERSION } from './protocol.js';

/**
 * The Durable Object behind `durableObjectDedupStore`: it keeps the claims and done
 * deliveries of one delivery id (or, with ordering, of one article) in its transactional
 * storage and serves them to the store one call at a time, so concurrent copies of a delivery
 * arriving at any number of Worker instances still meet in one place and only one claims it.
 * Leases expire by the object's own clock; an alarm deletes what outlived its retention, so
 * an object whose deliveries are all forgotten holds no storage.
 *
 * Export it from your Worker and bind it. A plain class with the classic `fetch`/`alarm`
 * interface: importing it needs no `cloudflare:workers` and no `nodejs_compat`, and it works
 * on the SQLite and on the key-value storage backend.
 *
 * @example
 * ```ts
 * // src/index.ts
 * export { WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';
 * ```
 * ```toml
 * # wrangler.toml
 * [[durable_objects.bindings]]
 * name = "DEDUP"
 * class_name = "WebhookDedupObject"
 *
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["WebhookDedupObject"]
 * ```
 */
export class WebhookDedupObject {
  /** Type-level only: lets `DurableObjectNamespace<WebhookDedupObject>` (from `@cloudflare/workers-types`) accept it. */
  declare readonly __DURABLE_OBJECT_BRAND: never;
  private readonly storage: DurableObjectStorageLike;
  private readonly ledger: ClaimLedger;
  // Each call runs alone, start to end: the ledger's read-then-write must not interleave.
  private queue: Promise<unknown> = Promise.resolve();

  /** Called by the Workers runtime with the object's state (`ctx`); not meant to be called by hand. */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    if (typeof state?.storage?.get !== 'function') {
      throw new TypeError(
        'WebhookDedupObject needs Durable Object state with storage: export the class from your Worker and bind it ' +
          'under [[durable_objects.bindings]] in wrangler.toml; the runtime constructs it.',
      );
    }
    this.storage = state.storage;
    this.ledger = new ClaimLedger(state.storage);
  }

  /** Serves one store call (a POST from `durableObjectDedupStore`). */
  async fetch(request: Request): Promise<Response> {
    let call: ReturnType<typeof parseLedgerRequest>;
    try {
      call = parseLedgerRequest(await request.json());
    } catch (error) {
      return reply(400, { v: PROTOCOL_VERSION, error: `WebhookDedupObject refused the call: ${messageOf(error)}` });
    }
    try {
      const result = await this.alone(async () => {
        const at = Date.now();
        const result = await this.ledger.run(call, at);
        // An object with anything stored always has an alarm, so what it stores is always swept.
        if ((await this.storage.getAlarm()) === null) await this.storage.setAlarm(at + call.leaseMs);
        return result;
      });
      return reply(200, { v: PROTOCOL_VERSION, result });
    } catch (error) {
      return reply(500, { v: PROTOCOL_VERSION, error: `WebhookDedupObject storage failed: ${messageOf(error)}` });
    }
  }

  /** Called by the runtime when the alarm fires: forgets what expired, and sets the next alarm if anything is left. */
  async alarm(): Promise<void> {
    await this.alone(async () => {
      const next = await this.ledger.sweep(Date.now());
      if (next !== null) await this.storage.setAlarm(next);
    });
  }

  private alone<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function reply(status: number, body: LedgerReply): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : describeThrown(error);
}
