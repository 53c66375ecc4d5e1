import { WebhookError } from '../../errors/webhook-error.js';

/**
 * Tenant mode's cap on lookups of unknown token hashes: a bucket of `perSecond` lookups that
 * refills at `perSecond` a second, so no stretch of time sees more than `perSecond` lookups
 * plus what the elapsed time refilled. A flood of random tokens costs the resolver (a
 * database) that many calls a second.
 */
export class LookupBudget {
  private tokens: number;
  private filledAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = perSecond;
    this.filledAt = now();
  }

  /** True while a lookup is left in the bucket. */
  left(): boolean {
    const now = this.now();
    const refill = ((now - this.filledAt) * this.perSecond) / 1000;
    if (refill > 0) {
      this.tokens = Math.min(this.perSecond, this.tokens + refill);
      this.filledAt = now;
    }
    return this.tokens >= 1;
  }

  /** Takes one lookup when there is one left; else throws the 503 the request is answered with. */
  take(): void {
    if (!this.left()) throw this.exhausted();
    this.tokens--;
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
