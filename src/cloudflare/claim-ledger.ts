import { type ClaimOutcome, type DedupClaim, STALE_ANSWER, type StoredAnswer } from 'webhook-cms-receiver';
import type { DurableObjectStorageLike } from './bindings.js';
import type { LedgerRequest, LedgerResult } from './protocol.js';

/** A delivery's record: a claim while `answer` is absent, a done delivery once it is set. */
interface DeliveryRecord {
  lease: string;
  expiresAt: number;
  answer?: StoredAnswer;
}

/** An article's ordering state, in the article's object. */
interface ArticleMark {
  /** Newest envelope timestamp whose handler succeeded; null before any. */
  newest: number | null;
  /** The lease of the delivery running for this article, null when none. */
  holder: string | null;
  holderExpiresAt: number;
  /** When the mark is forgotten: the retention period after it last moved. */
  expiresAt: number;
}

const MARK = 'mark';
const RECORD_PREFIX = 'id:';
// Storage deletes at most 128 keys per call.
const DELETE_BATCH = 128;

/** What one operation saw: the live delivery record and article mark (expired ones read as absent). */
interface Seen {
  key: string;
  record: DeliveryRecord | undefined;
  mark: ArticleMark | undefined;
}

/**
 * The memory store's semantics over one Durable Object's storage. Every operation is one
 * read and one write with nothing awaited between them but storage, and the object runs
 * them one at a time, so each is atomic. Expired records read as absent (lazy expiry); the
 * alarm deletes them (`sweep`).
 */
export class ClaimLedger {
  constructor(private readonly storage: DurableObjectStorageLike) {}

  /** Runs one store call at time `at` (the object's clock, the only one that counts). */
  async run(request: LedgerRequest, at: number): Promise<LedgerResult> {
    const seen = await this.read(request.claim, at);
    switch (request.op) {
      case 'claim':
        return this.claim(request, seen, at);
      case 'renew':
        return this.renew(request, request.lease!, seen, at);
      case 'complete':
        return this.complete(request, request.lease!, seen, at);
      case 'release':
        return this.release(request.claim, request.lease!, seen);
    }
  }

  private async claim({ claim, leaseMs, retentionMs }: LedgerRequest, seen: Seen, at: number): Promise<ClaimOutcome> {
    const { record, mark } = seen;
    if (record) return record.answer ? { state: 'done', answer: record.answer } : { state: 'in-progress' };
    const lease = globalThis.crypto.randomUUID();
    const order = claim.order;
    if (order && mark && mark.newest !== null && order.timestamp < mark.newest) {
      await this.write(seen.key, { lease, expiresAt: at + retentionMs, answer: STALE_ANSWER }, undefined);
      return { state: 'stale', newerTimestamp: mark.newest };
    }
    if (order && mark && mark.holder !== null && mark.holderExpiresAt > at) return { state: 'in-progress' };
    await this.write(seen.key, { lease, expiresAt: at + leaseMs }, order ? held(mark, lease, at + leaseMs) : undefined);
    return { state: 'claimed', lease };
  }

  private async renew({ claim, leaseMs }: LedgerRequest, lease: string, seen: Seen, at: number): Promise<boolean> {
    const { record, mark } = seen;
    if (record && (record.lease !== lease || record.answer)) return false;
    if (claim.order && mark && mark.holder !== null && mark.holder !== lease && mark.holderExpiresAt > at) return false;
    // A lapsed claim nobody took is held again rather than left for a copy to run beside us.
    const until = at + leaseMs;
    await this.write(seen.key, { lease, expiresAt: until }, claim.order ? held(mark, lease, until) : undefined);
    return true;
  }

  private async complete(request: LedgerRequest, lease: string, seen: Seen, at: number): Promise<boolean> {
    const { record, mark } = seen;
    if (record && (record.lease !== lease || record.answer)) return false;
    const expiresAt = at + request.retentionMs;
    const order = request.claim.order;
    let next: ArticleMark | undefined;
    if (order) {
      const newest = mark?.newest == null ? order.timestamp : Math.max(mark.newest, order.timestamp);
      const freed = !mark || mark.holder === lease;
      next = freed
        ? { newest, holder: null, holderExpiresAt: 0, expiresAt }
        : { ...mark, newest, expiresAt: Math.max(expiresAt, mark.holderExpiresAt) };
    }
    await this.write(seen.key, { lease, expiresAt, answer: request.answer! }, next);
    return true;
  }

  private async release(claim: DedupClaim, lease: string, seen: Seen): Promise<null> {
    const { record, mark } = seen;
    if (claim.order && mark?.holder === lease) await this.storage.put({ [MARK]: { ...mark, holder: null } });
    if (record && record.lease === lease && !record.answer) await this.storage.delete([seen.key]);
    return null;
  }

  /**
   * Deletes what expired and answers when to look again: the earliest expiry left, or null
   * when nothing is left (the object's storage is then cleared entirely).
   */
  async sweep(at: number): Promise<number | null> {
    const entries = await this.storage.list({ prefix: RECORD_PREFIX });
    const mark = (await this.storage.get([MARK])).get(MARK);
    if (mark !== undefined) entries.set(MARK, mark);
    const expired: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [key, value] of entries) {
      const expiresAt = (value as { expiresAt: number }).expiresAt;
      if (expiresAt <= at) expired.push(key);
      else next = Math.min(next, expiresAt);
    }
    if (next === Number.POSITIVE_INFINITY) {
      await this.storage.deleteAll();
      return null;
    }
    for (let i = 0; i < expired.length; i += DELETE_BATCH)
      await this.storage.delete(expired.slice(i, i + DELETE_BATCH));
    return next;
  }

  private async read(claim: DedupClaim, at: number): Promise<Seen> {
    const key = RECORD_PREFIX + claim.deliveryId;
    const found = await this.storage.get(claim.order ? [key, MARK] : [key]);
    return {
      key,
      record: alive(found.get(key) as DeliveryRecord | undefined, at),
      mark: claim.order ? alive(found.get(MARK) as ArticleMark | undefined, at) : undefined,
    };
  }

  /** One put for the record and the mark together: storage applies a multi-key put atomically. */
  private async write(key: string, record: DeliveryRecord, mark: ArticleMark | undefined): Promise<void> {
    await this.storage.put(mark ? { [key]: record, [MARK]: mark } : { [key]: record });
  }
}

/** The article's mark with `lease` now holding it until `until`. */
function held(mark: ArticleMark | undefined, lease: string, until: number): ArticleMark {
  return {
    newest: mark?.newest ?? null,
    holder: lease,
    holderExpiresAt: until,
    expiresAt: Math.max(mark?.expiresAt ?? 0, until),
  };
}

function alive<T extends { expiresAt: number }>(value: T | undefined, at: number): T | undefined {
  return value !== undefined && value.expiresAt > at ? value : undefined;
}
