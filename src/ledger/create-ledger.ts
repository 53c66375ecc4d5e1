import type { KeepLimits } from '../dedup/kept-requests.js';
import { describeThrown } from '../internal/describe.js';
import { ledgerRetention } from '../internal/ledger-retention.js';
import { positiveOption } from '../internal/positive.js';
import type { Ledger, RecoverReport } from './ledger.js';
import {
  DEFAULT_LEDGER_MAX_REFUSED_ROWS,
  DEFAULT_LEDGER_MAX_ROWS,
  DEFAULT_LEDGER_REFUSALS_PER_MINUTE,
  DEFAULT_LEDGER_RETENTION_MS,
  type LedgerOptions,
} from './ledger-options.js';
import { ledgerFilter, timeOption } from './ledger-query.js';
import { LEDGER_SINK, type LedgerBinding, type LedgerSink, type SinkedLedger } from './ledger-sink.js';
import type { LedgerStore } from './ledger-store.js';
import { LedgerWriter } from './ledger-writer.js';
import { recoverRefusals } from './recover.js';
import { resendList } from './resend.js';

const DAY_MS = 24 * 3_600_000;
const DEFAULT_MAX_KEPT_REFUSALS = 1000;
const DEFAULT_MAX_KEPT_REFUSAL_BYTES = 64 * 1024 * 1024;

/**
 * Builds a {@link Ledger} on a {@link LedgerStore}: rows buffered and written in batches,
 * refusals rate-limited, the store pruned to the retention, refusals kept and recovered. The
 * shipped ledgers (`memoryLedger`, `postgresLedger`, `redisLedger`, `dynamoDbLedger`) are this
 * on their stores; use it for a store of your own.
 *
 * @example
 * ```ts
 * const ledger = createLedger(myLedgerStore, { retentionMs: 7 * 86_400_000 });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * ```
 */
export function createLedger(store: LedgerStore, options: LedgerOptions = {}): Ledger {
  if (typeof store?.append !== 'function' || typeof store.list !== 'function' || typeof store.refusals !== 'object') {
    throw new TypeError('createLedger: store must be a LedgerStore (append, list, summary, prune and refusals).');
  }
  const now = options.now ?? Date.now;
  const label = (name: string) => `ledger: ${name}`;
  const retentionMs = ledgerRetention(options.retentionMs, DEFAULT_LEDGER_RETENTION_MS, label('retentionMs'));
  const maxRowsPerTenant = positiveOption(options.maxRowsPerTenant, DEFAULT_LEDGER_MAX_ROWS, label('maxRowsPerTenant'));
  const maxRefusedRows = positiveOption(
    options.maxRefusedRows,
    DEFAULT_LEDGER_MAX_REFUSED_ROWS,
    label('maxRefusedRows'),
  );
  const maxKept = positiveOption(options.maxKeptRefusals, DEFAULT_MAX_KEPT_REFUSALS, label('maxKeptRefusals'));
  const maxKeptBytes = positiveOption(
    options.maxKeptRefusalBytes,
    DEFAULT_MAX_KEPT_REFUSAL_BYTES,
    label('maxKeptRefusalBytes'),
  );
  const writer = new LedgerWriter({
    store,
    now,
    flushMs: positiveOption(options.flushMs, 100, label('flushMs')),
    refusalsPerMinute: positiveOption(
      options.refusalsPerMinute,
      DEFAULT_LEDGER_REFUSALS_PER_MINUTE,
      label('refusalsPerMinute'),
    ),
    limits: () => ({ before: now() - retentionMs, maxRowsPerTenant, maxRefusedRows }),
  });
  const keepRefused = options.keepRefused === true;
  const keptLimits = (receivedAt: number): KeepLimits => ({
    maxCount: maxKept,
    maxBytes: maxKeptBytes,
    until: receivedAt + retentionMs,
  });
  let binding: LedgerBinding | undefined;
  // Work that will record rows (refusals being kept, a recorder loading): `flush()` waits for it.
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const done = (): void => void pending.delete(settled);
    const settled: Promise<unknown> = work.then(done, done);
    pending.add(settled);
  };
  const flush = async () => {
    while (pending.size > 0) await Promise.all(pending);
    await writer.flush();
  };
  let recovering: Promise<RecoverReport> | undefined;

  const sink: LedgerSink = {
    record: (entry) => writer.push(entry),
    admitsRefusal: () => writer.takeRefusal(),
    recordKept(entry, request) {
      track(
        request
          .then((kept) => keepRefused && store.refusals.keep(kept, keptLimits(kept.receivedAt)))
          .then(
            (kept) => {
              if (kept) entry.kept = true;
            },
            (cause: unknown) => writer.report(`a refused request could not be kept: ${describeThrown(cause)}`),
          )
          .then(() => writer.push(entry)),
      );
    },
    track,
    maxKeptBytes,
    keepRefused,
    bind(next) {
      binding = next;
      writer.report = next.report;
    },
  };

  const ledger: SinkedLedger = {
    [LEDGER_SINK]: sink,
    keepRefused,
    async list(query) {
      return store.list(ledgerFilter(query));
    },
    async summary(query = {}) {
      const until = timeOption(query.until, 'ledger.summary: until') ?? now();
      const since = timeOption(query.since, 'ledger.summary: since') ?? until - DAY_MS;
      return store.summary(query.tenant === undefined ? { since, until } : { since, until, tenant: query.tenant });
    },
    async resend(query = {}) {
      const since = timeOption(query.since, 'ledger.resend: since') ?? now() - retentionMs;
      return resendList(store, query.tenant === undefined ? { since } : { since, tenant: query.tenant });
    },
    recover(recoverOptions = {}) {
      const since = timeOption(recoverOptions.since, 'ledger.recover: since') ?? 0;
      if (!binding) {
        return Promise.reject(
          new TypeError(
            'ledger.recover: give this ledger to createReceiver({ ledger }) first: recovery processes with that ' +
              "receiver's tokens and handlers. From a shell, run `npx webhook-cms-receiver ledger recover --url <endpoint>`.",
          ),
        );
      }
      const { recoverer } = binding;
      // One recovery at a time: a second call waits for the first, then runs on what is left.
      const run = async () => {
        await flush();
        const report = await recoverRefusals({ refusals: store.refusals, recoverer, since, limits: keptLimits });
        await writer.flush();
        return report;
      };
      const next = (recovering ?? Promise.resolve()).then(run, run);
      recovering = next;
      return next.finally(() => {
        if (recovering === next) recovering = undefined;
      });
    },
    flush,
  };
  return ledger;
}
