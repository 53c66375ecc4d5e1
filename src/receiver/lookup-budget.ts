import { WebhookError } from '../errors/webhook-error.js';

/**
 * Tenant mode's cap on lookups of uncached token hashes: at most `perSecond` in any one-second
 * window, so a flood of random tokens costs the resolver (a database) that many calls a second.
 */
export class LookupBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {}

  /** True while this second's window has a lookup left; opens a new window once a second has passed. */
  left(): boolean {
    const now = this.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.used = 0;
    }
    return this.used < this.perSecond;
  }

  /** Takes one lookup when there is one left; else throws the 503 the request is answered with. */
  take(): void {
    if (!this.left()) throw this.exhausted();
    this.used++;
  }

  /** The refusal past the cap: 503, retried by the service, never a 401 a real site could lose a delivery to. */
  exhausted(): WebhookError {
    return new WebhookError(
      'token_unavailable',
      `more than ${this.perSecond} lookups of unknown tokens in the last second (tenantLookupsPerSecond): ` +
        'answered 503 so the service retries, without calling tenants',
    );
  }
}
