import { tokenSha256Hex } from '../crypto/token-sha256.js';
import type { KeptRequest } from '../dedup/kept-requests.js';
import { DEFAULT_LEDGER_RETENTION_MS } from '../ledger/ledger-options.js';
import type { RecoverReport } from '../ledger/ledger.js';
import type { RefusalRecoverer } from '../ledger/ledger-sink.js';
import type { LedgerStore } from '../ledger/ledger-store.js';
import { recoverRefusals } from '../ledger/recover.js';
import { createReceiver } from '../receiver/assembly/create-receiver.js';
import { fromBase64 } from '../receiver/kept/kept-encoding.js';
import { signDelivery } from '../sender/index.js';

/** One attempt's time, as the service allows. */
const TIMEOUT_MS = 10_000;
/** Headers the re-delivery signs afresh (or must not copy): the rest of a kept request's go along. */
const RESIGNED = new Set(['authorization', 'x-service-timestamp', 'x-service-signature', 'content-length', 'host']);

/** What `ledger recover` re-delivers with. */
export interface RedeliverOptions {
  store: LedgerStore;
  /** The endpoint. */
  url: string;
  /** The token: only refusals it signed are recovered, and the re-delivery is signed with it. */
  token: string;
  since: number;
}

/**
 * `ledger recover` from a shell: no handlers here, so each kept refusal the token signed is
 * verified as it was received (its timestamp against its receivedAt, through the receiver's
 * own checks), then re-delivered to the endpoint as the service retries: signed afresh with a
 * fresh timestamp and the same delivery id. `recoverRefusals` takes each by exactly one caller
 * and keeps it again unless the endpoint answered 2xx, so nothing is lost to a failed run.
 */
export async function redeliverRefusals({ store, url, token, since }: RedeliverOptions): Promise<RecoverReport> {
  const hash = await tokenSha256Hex(token);
  const recoverer: RefusalRecoverer = {
    knows: (tokenSha256) => tokenSha256 === hash,
    async process(request) {
      const body = fromBase64(request.body);
      if (!(await verifiedAsReceived(request, body, token))) return undefined;
      const status = await redeliver(url, token, request, body);
      // Only a 2xx takes it out of the ledger: any other answer is a failure, kept for the next run.
      return status >= 200 && status < 300 ? status : 500;
    },
  };
  return recoverRefusals({
    refusals: store.refusals,
    recoverer,
    since,
    // Kept again as it was: the bounds let back in what was just taken out.
    limits: (receivedAt) => ({
      maxCount: Number.MAX_SAFE_INTEGER,
      maxBytes: Number.MAX_SAFE_INTEGER,
      until: receivedAt + DEFAULT_LEDGER_RETENTION_MS,
    }),
  });
}

/**
 * Whether the receiver's checks pass with this token on the clock of the moment it arrived: a
 * receiver of this token alone, no store, handling it with no handlers. 401 and 403 are the
 * refusals of the token, signature and timestamp; anything else got past them.
 */
async function verifiedAsReceived(request: KeptRequest, body: Uint8Array, token: string): Promise<boolean> {
  const receiver = createReceiver({ token, dedup: false, logger: false, now: () => request.receivedAt });
  const headers = { ...request.headers, authorization: `Bearer ${token}` };
  const { status } = await receiver.handle({ headers, body }, {});
  return status !== 401 && status !== 403;
}

/** One attempt, as the service sends a retry; the status answered. Throws when no answer came. */
async function redeliver(url: string, token: string, request: KeptRequest, body: Uint8Array): Promise<number> {
  const deliveryId = request.headers['x-service-delivery-id'] ?? null;
  const signed = signDelivery({ token, payload: body, deliveryId });
  // By lower-case name, so a kept header and its signed namesake never both go (fetch would join them).
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!RESIGNED.has(name)) headers[name] = value;
  for (const [name, value] of Object.entries(signed.headers)) headers[name.toLowerCase()] = value;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: signed.body as Uint8Array<ArrayBuffer>,
    redirect: 'manual',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await response.body?.cancel();
  return response.status;
}
