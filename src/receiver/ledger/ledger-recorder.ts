import type { KeptRequest } from '../../dedup/kept-requests.js';
import type { WebhookEvent } from '../../events/types.js';
import { bodyBytes } from '../../input/body.js';
import { type HeaderLookup, safeHeaderLookup } from '../../input/headers.js';
import { describeThrown } from '../../internal/describe.js';
import type { LedgerEntry } from '../../ledger/ledger-row.js';
import type { LedgerSink, RefusalRecoverer } from '../../ledger/ledger-sink.js';
import { tokenSha256Hex } from '../../crypto/token-sha256.js';
import type { Answer } from '../answers.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportRejection } from '../hooks.js';
import { toBase64 } from '../kept/kept-encoding.js';
import type { KeepingReads } from '../kept/kept-gate.js';
import { keptHeaders, verifiable } from '../kept/kept-headers.js';
import { verifyKept } from '../kept/kept-verify.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import { bearerStart } from '../tokens/token.js';
import { refusedEntry, verifiedEntry } from './ledger-entry.js';

/** What a {@link LedgerRecorder} is built from, once per receiver. */
export interface LedgerRecorderOptions {
  sink: LedgerSink;
  config: VerifyConfig;
  options: ReceiverOptions;
  pipeline: Pipeline;
  report: (message: string) => void;
  /** The handlers of the last delivery handled: what recovered deliveries are processed with. */
  handlers: () => WebhookHandlers | undefined;
  /** The places of bodies read to be kept, taken at the head (see `readsRefused` in ledger-setup.ts). */
  reads: KeepingReads;
}

/** A refused request as the ledger is told of it. */
export interface Refused {
  headers: unknown;
  /** The body, when the receiver read it. */
  body?: unknown;
  answer: Answer;
  receivedAt: number;
}

/**
 * A receiver's side of its ledger: one row per answered request, refusals rate-limited, the
 * bodies of 401 and 403 refusals kept with `keepRefused`, and the recovery of what is kept.
 * Nothing here throws into an answer or makes it wait. Loaded on first use (ledger-setup.ts),
 * so a receiver without a ledger does not bundle it.
 */
export class LedgerRecorder implements RefusalRecoverer {
  constructor(private readonly deps: LedgerRecorderOptions) {}

  verified(event: WebhookEvent, answer: Answer, receivedAt: number): void {
    try {
      this.deps.sink.record(verifiedEntry(event, answer, { receivedAt, now: this.deps.config.now() }));
    } catch (cause) {
      this.deps.report(`a delivery could not be recorded: ${describeThrown(cause)}`);
    }
  }

  refused({ headers, body, answer, receivedAt }: Refused): void {
    const { sink, config } = this.deps;
    try {
      // A request whose body was read to be kept already took its place in the rate limit.
      if (!this.deps.reads.release(headers) && !sink.admitsRefusal()) return;
      const lookup = safeHeaderLookup(headers);
      let bytes: Uint8Array | undefined;
      try {
        bytes = body === undefined ? undefined : bodyBytes(body, config.maxBodyBytes);
      } catch {
        bytes = undefined;
      }
      const entry = refusedEntry(lookup, bytes, answer, { receivedAt, now: config.now() });
      if (this.keeps(lookup, answer, bytes)) this.keep(entry, lookup, bytes!);
      else sink.record(entry);
    } catch (cause) {
      this.deps.report(`a refused request could not be recorded: ${describeThrown(cause)}`);
    }
  }

  private keeps(lookup: HeaderLookup, answer: Answer, bytes: Uint8Array | undefined): boolean {
    if (!this.deps.sink.keepRefused || (answer.status !== 401 && answer.status !== 403)) return false;
    if (bytes === undefined || bytes.byteLength === 0 || bytes.byteLength > this.deps.sink.maxKeptBytes) return false;
    return verifiable(lookup);
  }

  /** Keeps the refused request under its row's id; its row is recorded once kept (marked kept when it was). */
  private keep(entry: LedgerEntry, lookup: HeaderLookup, bytes: Uint8Array): void {
    const authorization = lookup('authorization')!;
    const headers = keptHeaders(lookup);
    const body = toBase64(bytes);
    const request = Promise.resolve(tokenSha256Hex(authorization.slice(bearerStart(authorization)))).then(
      (tokenSha256): KeptRequest => ({ id: entry.id, tokenSha256, headers, body, receivedAt: entry.receivedAt }),
    );
    this.deps.sink.recordKept(entry, request);
  }

  // RefusalRecoverer: what `ledger.recover()` processes kept refusals with.

  async knows(tokenSha256: string): Promise<boolean> {
    return (await this.deps.config.keeper.matchKept(tokenSha256)) !== undefined;
  }

  async process(request: KeptRequest): Promise<number | undefined> {
    const { config, options, pipeline, sink } = this.deps;
    const handlers = this.deps.handlers() ?? options.handlers;
    const matched = await config.keeper.matchKept(request.tokenSha256);
    if (!matched) return undefined;
    let verified: Awaited<ReturnType<typeof verifyKept>>;
    try {
      verified = await verifyKept(config, request, matched);
    } catch (thrown) {
      reportRejection(options, thrown, request.headers);
      return undefined;
    }
    const receivedAt = config.now();
    const answer = await pipeline(verified.event, handlers, verified.input);
    sink.record(verifiedEntry(verified.event, answer, { receivedAt, now: config.now() }, request.id));
    return answer.status;
  }
}
