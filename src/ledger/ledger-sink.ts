import type { KeptRequest } from '../dedup/kept-requests.js';
import type { Ledger } from './ledger.js';
import type { LedgerEntry } from './ledger-row.js';

/**
 * How a receiver processes a kept refusal: given to its ledger by `createReceiver`, used by
 * `recover()` (and by the CLI, which re-delivers instead).
 */
export interface RefusalRecoverer {
  /** Throws, naming the fix, when nothing could be processed (no handlers to process with). */
  ready?(): void;
  /** Whether one of the current tokens is the one whose SHA-256 this is. */
  knows(tokenSha256: string): boolean | Promise<boolean>;
  /**
   * Verifies the request with the current tokens, judging its timestamp against its
   * `receivedAt`, and processes it as if it had just arrived. Resolves to the status answered,
   * or undefined when it does not verify.
   */
  process(request: KeptRequest): Promise<number | undefined>;
}

/** What a receiver gives the ledger it records to. */
export interface LedgerBinding {
  /** Ledger faults (a store down, rows not recorded), as the receiver's `warn` lines. */
  report(message: string): void;
  recoverer: RefusalRecoverer;
}

/** The receiver's side of a ledger: what `createReceiver({ ledger })` records through. */
export interface LedgerSink {
  /** Buffers one row; never throws, never waits. */
  record(entry: LedgerEntry): void;
  /**
   * Whether a refused request with this id will be recorded (refusals are rate-limited): a
   * refusal not recorded is not kept either. Takes one place of the rate limit when true.
   */
  admitsRefusal(): boolean;
  /**
   * Keeps a refused request (`keepRefused`) within the bounds, then records its row, marked
   * `kept` when it was. `flush()` waits for it. Never rejects: a failure is reported.
   */
  recordKept(entry: LedgerEntry, request: Promise<KeptRequest>): void;
  /** Work that will record rows (the recorder's code loading): `flush()` waits for it too. */
  track(work: Promise<unknown>): void;
  /** The largest body worth reading to keep (`maxKeptRefusalBytes`). */
  readonly maxKeptBytes: number;
  readonly keepRefused: boolean;
  bind(binding: LedgerBinding): void;
}

/** Where a ledger made by `createLedger` keeps its receiver's side. */
export const LEDGER_SINK: unique symbol = Symbol.for('webhook-cms-receiver.ledger-sink');

/** The receiver's side of a ledger, or a TypeError naming the fix for anything else. */
export function ledgerSink(ledger: unknown): LedgerSink {
  const sink = (ledger as { [LEDGER_SINK]?: LedgerSink } | null | undefined)?.[LEDGER_SINK];
  if (sink === undefined || typeof sink.record !== 'function') {
    throw new TypeError(
      'createReceiver: ledger must be a ledger made by memoryLedger(), postgresLedger(), redisLedger(), ' +
        'dynamoDbLedger() or createLedger(store).',
    );
  }
  return sink;
}

/** A ledger with its receiver's side, as `createLedger` makes it. */
export type SinkedLedger = Ledger & { readonly [LEDGER_SINK]: LedgerSink };
