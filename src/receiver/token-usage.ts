import type { WebhookEvent } from '../events/types.js';
import { reportingLog } from './hooks.js';
import type { ReceiverOptions } from './options.js';

const WARN_MS = 60_000;

/**
 * Warns, at most once a minute, while deliveries still arrive signed by a token other than
 * the first: the old token is still in use, so it is not yet safe to remove. Counts the
 * deliveries in between, and never names the token.
 */
export class TokenUsage {
  private warnedAt = Number.NEGATIVE_INFINITY;
  private since = 0;

  constructor(
    private readonly options: ReceiverOptions,
    private readonly now: () => number,
  ) {}

  /** Notes a verified delivery; cheap when it used the first token. */
  note(event: WebhookEvent): void {
    if (event.tokenIndex === 0) return;
    this.since++;
    const now = this.now();
    if (now - this.warnedAt < WARN_MS) return;
    this.warnedAt = now;
    const count = this.since;
    this.since = 0;
    reportingLog(this.options).warn(
      `${count} delivery(ies) in the last minute were signed with token #${event.tokenIndex} (not the first): ` +
        'the service still uses an older token; keep it configured until this line stops',
      { tokenIndex: event.tokenIndex, deliveries: count },
    );
  }
}
