import type { WebhookEvent } from '../events/types.js';
import { reportingLog } from './hooks.js';
import type { ReceiverOptions } from './options.js';

const WARN_MS = 60_000;
/** Tenants whose older tokens are tracked at once; past it the longest-tracked is dropped. */
const MAX_TRACKED = 1000;

/** One tenant's (or the receiver's) deliveries under an older token since its last line. */
interface Usage {
  warnedAt: number;
  since: number;
}

/**
 * Warns, at most once a minute (per tenant in tenant mode), while deliveries still arrive
 * signed by a token other than the first: the old token is still in use, so it is not yet
 * safe to remove. Counts the deliveries in between, and never names the token.
 */
export class TokenUsage {
  private readonly usage = new Map<string, Usage>();

  constructor(
    private readonly options: ReceiverOptions,
    private readonly now: () => number,
  ) {}

  /** Notes a verified delivery; cheap when it used the first token. */
  note(event: WebhookEvent): void {
    if (event.tokenIndex === 0) return;
    const tenant = event.tenant?.id;
    const key = tenant ?? '';
    let usage = this.usage.get(key);
    if (!usage) {
      if (this.usage.size >= MAX_TRACKED) this.usage.delete(this.usage.keys().next().value!);
      usage = { warnedAt: Number.NEGATIVE_INFINITY, since: 0 };
      this.usage.set(key, usage);
    }
    usage.since++;
    const now = this.now();
    if (now - usage.warnedAt < WARN_MS) return;
    usage.warnedAt = now;
    const count = usage.since;
    usage.since = 0;
    const whose = tenant === undefined ? '' : ` for tenant ${tenant}`;
    reportingLog(this.options).warn(
      `${count} delivery(ies)${whose} in the last minute were signed with token #${event.tokenIndex} (not the first): ` +
        'the service still uses an older token; keep it configured until this line stops',
      { tokenIndex: event.tokenIndex, deliveries: count, ...(tenant === undefined ? {} : { tenant }) },
    );
  }
}
