import type { WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import type { HeaderLookup } from '../../input/headers.js';
import { ledgerSink } from '../../ledger/ledger-sink.js';
import type { Answer } from '../answers.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportingLog } from '../hooks.js';
import type { ReceiverOptions } from '../options.js';
import { KeepingReads } from '../kept/kept-gate.js';
import { keepableSize, verifiable } from '../kept/kept-headers.js';
import type { Pipeline } from '../pipeline.js';
import type { LedgerRecorder, Refused } from './ledger-recorder.js';

/** Calls held while the recorder's code loads (a few milliseconds at start); past this, dropped. */
const MAX_WAITING = 1000;

/** What `handle()` and `admit()` tell the ledger; see {@link LedgerRecorder}. */
export interface LedgerHooks {
  /** The handlers of the last delivery handled. */
  handlers: WebhookHandlers | undefined;
  readsRefused(lookup: HeaderLookup, error: WebhookError, headers: unknown): boolean;
  verified(event: WebhookEvent, answer: Answer, receivedAt: number): void;
  refused(refused: Refused): void;
}

/**
 * A receiver's ledger hooks, or undefined without the `ledger` option. The ledger is checked
 * and bound now, so `createReceiver` throws for a wrong one and `ledger.recover()` works at
 * once; the recorder's code loads on first use, so a receiver without a ledger does not bundle
 * it. Until it is in, rows wait (at most 1000, the rest counted in a `warn` line) and
 * `ledger.flush()` waits for them.
 */
export function ledgerHooks(
  options: ReceiverOptions,
  deps: { config: VerifyConfig; pipeline: Pipeline },
): LedgerHooks | undefined {
  if (options.ledger === undefined) return undefined;
  const sink = ledgerSink(options.ledger);
  const log = reportingLog(options);
  const report = (message: string) => log.warn(`ledger: ${message}`, {});
  let recorder: LedgerRecorder | undefined;
  // At the head, before the recorder's code may be in: a 401 is read on to be kept (with
  // `keepRefused`) only when it could be verified later, of a size that can be kept, within
  // the refusal rate limit and at most 4 reads at once.
  const reads = new KeepingReads(deps.config.now);
  const most = Math.min(sink.maxKeptBytes, deps.config.maxBodyBytes);
  const waiting: ((loaded: LedgerRecorder) => void)[] = [];
  let dropped = 0;
  const later = (call: (loaded: LedgerRecorder) => void) => {
    if (waiting.length < MAX_WAITING) waiting.push(call);
    else dropped++;
  };
  const hooks: LedgerHooks = {
    handlers: undefined,
    readsRefused(lookup, error, headers) {
      if (!sink.keepRefused || error.status !== 401 || typeof headers !== 'object' || headers === null) return false;
      if (!verifiable(lookup) || !keepableSize(lookup, most)) return false;
      if (!reads.take(headers)) return false;
      if (sink.admitsRefusal()) return true;
      reads.release(headers);
      return false;
    },
    verified(event, answer, receivedAt) {
      if (recorder) recorder.verified(event, answer, receivedAt);
      else later((loaded) => loaded.verified(event, answer, receivedAt));
    },
    refused(refused) {
      if (recorder) recorder.refused(refused);
      else later((loaded) => loaded.refused(refused));
    },
  };
  const loaded = import('./ledger-recorder.js').then(({ LedgerRecorder }) => {
    recorder = new LedgerRecorder({ sink, ...deps, options, report, reads, handlers: () => hooks.handlers });
    for (const call of waiting.splice(0)) call(recorder);
    if (dropped > 0)
      report(`${dropped} request(s) answered while its code loaded were not recorded (${MAX_WAITING} wait at most)`);
    return recorder;
  });
  sink.track(loaded);
  sink.bind({
    report,
    recoverer: {
      ready() {
        if (hooks.handlers === undefined && options.handlers === undefined && options.queue === undefined) {
          throw new TypeError(
            'ledger.recover: this receiver has no handlers to process recovered deliveries with: set ' +
              'createReceiver({ handlers }), use queue mode, or recover after it has handled a delivery.',
          );
        }
      },
      knows: (tokenSha256) => loaded.then((ready) => ready.knows(tokenSha256)),
      process: (request) => loaded.then((ready) => ready.process(request)),
    },
  });
  return hooks;
}
