import { type DedupClaim, type DedupStore, DEFAULT_LEASE_MS } from '../dedup/store.js';
import { describeThrown } from '../internal/describe.js';
import { andThen, attempt } from '../internal/maybe.js';

/** What keeps a claim alive while its handler runs. */
export interface LeaseKeeper {
  stop(): void;
}

/** What {@link keepLease} needs: the claim and whom to tell once when it goes wrong. */
export interface KeepLeaseOptions {
  store: DedupStore;
  claim: DedupClaim;
  lease: string;
  /** The delivery id as sent, for messages (the claim's is namespaced in tenant mode). */
  deliveryId: string;
  /** Called at most once: the lease was taken over, or the store failed to renew it. */
  onTrouble: (error: Error) => void;
}

/**
 * Renews a claim about every third of its lease while the handler runs, so a slow handler is
 * never run a second time beside itself, while a crashed process stops renewing and its claim
 * frees after one lease. Only started for handlers that do not finish synchronously.
 */
export function keepLease(options: KeepLeaseOptions): LeaseKeeper {
  const { store, claim, lease, deliveryId, onTrouble } = options;
  const renew = store.renew?.bind(store);
  if (!renew) return { stop() {} };
  const everyMs = Math.max(1, Math.floor((store.leaseMs ?? DEFAULT_LEASE_MS) / 3));
  let told = false;
  let stopped = false;
  const tell = (error: Error): void => {
    if (told || stopped) return;
    told = true;
    onTrouble(error);
  };
  const tick = (): void => {
    attempt(
      () =>
        andThen(renew(claim, lease), (held) => {
          if (held === false) {
            tell(
              new Error(
                `the lease on delivery ${deliveryId} was taken over by another request while its handler ran; ` +
                  'the handler may run twice. Is the store shared by hosts whose leaseMs differ?',
              ),
            );
          }
        }),
      (cause) => tell(new Error(`the dedup store failed to renew a lease: ${describeThrown(cause)}`, { cause })),
    );
  };
  const timer = setInterval(tick, everyMs) as unknown as { unref?: () => void };
  // A running handler keeps the process alive by itself; the timer must not after it ends.
  timer.unref?.();
  return {
    stop() {
      stopped = true;
      clearInterval(timer as unknown as number);
    },
  };
}
