import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS, type DedupStore } from 'webhook-cms-receiver';
import { positiveOption } from '../internal/positive.js';
import { type DynamoDbClientLike, sender } from './calls.js';
import { type StoreContext, UnansweredClaims } from './context.js';
import { keysFor } from './items.js';
import { dynamoDbKeptRequests } from './kept-store.js';
import { claimOrdered, completeOrdered, releaseOrdered, renewOrdered } from './ordered-steps.js';
import { claimPlain, completePlain, releasePlain, renewPlain } from './plain-steps.js';
import { checkedTableName } from './table-input.js';
import { tableCheck } from './table-check.js';

/** Options of {@link dynamoDbDedupStore}. */
export interface DynamoDbDedupStoreOptions {
  /** The table, created from `dynamoDbTableInput(table)` with Time to Live on `expiresAt`. */
  table: string;
  /** How long a claim holds without renewal, so a crashed process's delivery may run again. Default 60 s; a second or two works for tests. */
  leaseMs?: number;
  /** How long a handled delivery id, and an article's newest timestamp, are remembered. Default 72 h. */
  retentionMs?: number;
  /** Prepended to every partition key, so receivers that must not share deliveries can share a table. Default none. */
  keyPrefix?: string;
  /**
   * The most one call may take, SDK retries included, before it fails and the receiver answers
   * 503 (the service retries). Default 3 s: the service waits 10 s for the whole answer.
   */
  requestTimeoutMs?: number;
  /**
   * Check once, before the first call, that the table exists with Time to Live on `expiresAt`
   * (`dynamodb:DescribeTimeToLive`). Default true; false skips it, for a role without that
   * permission.
   */
  checkTable?: boolean;
}

/**
 * Remembers deliveries in a DynamoDB table, so every Lambda container and every process
 * deduplicates as one, with no VPC and no connection to keep: the store AWS users already run
 * for this job. Same semantics as the Redis and Postgres stores, ordering and kept requests
 * included, on the client of `@aws-sdk/client-dynamodb` (an optional peer).
 *
 * - **One round trip per claim.** A claim is one conditional PutItem (the id is absent,
 *   expired, or its claim's lease lapsed) that returns the existing item when the condition
 *   fails (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so a duplicate's stored answer
 *   needs no second read: a fresh delivery costs two calls (claim, complete), a duplicate one.
 *   With ordering each step is one TransactWriteItems over the delivery and its article.
 * - **Leases and retention.** Complete, renew and release are conditional on the lease;
 *   complete records the delivery whenever no other request holds it, and answers false
 *   (never throws) when another took it over. Every item carries its expiry in the TTL
 *   attribute `expiresAt` (whole seconds), and every read treats an item past its expiry as
 *   absent, since DynamoDB's Time to Live deletes late.
 * - **Clocks.** DynamoDB conditions have no clock of their own, so expiries are written and
 *   compared with the receiving hosts' clocks (as Powertools' idempotency does): hosts whose
 *   clocks differ by more than a small part of `leaseMs` shorten or lengthen each other's
 *   leases by that much. AWS hosts keep their clocks in sync.
 * - **Failures.** Throttling, a 5xx, a lost connection or a call past `requestTimeoutMs`
 *   rejects, so the receiver answers 503 and the service retries; recording a handled
 *   delivery is tried again for up to half a lease first, since an answer left unrecorded
 *   would let a retry run the handler twice. A missing table or Time to Live is reported at
 *   the first use, naming the fix.
 *
 * **Any string is an id**, written as the other stores write it: ids of at most 512 UTF-16
 * code units, well-formed and without U+0000 as given, any other as its SHA-256.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';
 *
 * const dedup = dynamoDbDedupStore(new DynamoDBClient({}), { table: 'webhook-deliveries' });
 * const receiver = createReceiver({ token, ordering: true, dedup });
 * ```
 */
export function dynamoDbDedupStore(client: DynamoDbClientLike, options: DynamoDbDedupStoreOptions): DedupStore {
  const table = checkedTableName(options?.table, 'dynamoDbDedupStore');
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, 'dynamoDbDedupStore: leaseMs');
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, 'dynamoDbDedupStore: retentionMs');
  const requestTimeoutMs = positiveOption(options.requestTimeoutMs, 3_000, 'dynamoDbDedupStore: requestTimeoutMs');
  const prefix = options.keyPrefix ?? '';
  const keysOf = keysFor(prefix);
  const send = sender(client, table, requestTimeoutMs);
  const ready = tableCheck(send, table, options.checkTable !== false);
  const context: StoreContext = {
    send,
    table,
    leaseMs,
    retentionMs,
    ready,
    keysOf,
    now: Date.now,
    unanswered: new UnansweredClaims(),
  };
  return {
    leaseMs,
    ordering: true,
    kept: dynamoDbKeptRequests(send, table, prefix, ready),
    claim(claim) {
      // Random, so two processes can never hold the same lease.
      const lease = globalThis.crypto.randomUUID();
      return claim.order ? claimOrdered(context, claim, lease) : claimPlain(context, claim, lease);
    },
    renew(claim, lease) {
      return claim.order ? renewOrdered(context, claim, lease) : renewPlain(context, claim, lease);
    },
    complete(claim, lease, answer) {
      return claim.order
        ? completeOrdered(context, claim, lease, answer)
        : completePlain(context, claim, lease, answer);
    },
    release(claim, lease) {
      return claim.order ? releaseOrdered(context, claim, lease) : releasePlain(context, claim, lease);
    },
  };
}
