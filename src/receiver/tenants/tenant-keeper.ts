import { tokenSha256Hex } from '../../crypto/token-sha256.js';
import { WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import { describeThrown } from '../../internal/describe.js';
import { andThen, type MaybePromise } from '../../internal/maybe.js';
import { LookupBudget } from './lookup-budget.js';
import { matchKeptIn } from '../tokens/fixed-tokens.js';
import { checkTenant, domainKey } from './tenant-binding.js';
import { HashCache, type TenantEntry } from './tenant-cache.js';
import { type CheckedTenant, readTenant } from './tenant-shape.js';
import type { TenantResolver } from './tenant.js';
import type { TenantBinding } from '../tokens/matched-tenant.js';
import { bearerStart, findToken, plausibleToken, unknownToken } from '../tokens/token.js';
import type { MatchedToken, MatcherOptions, TokenMatcher } from '../tokens/token-matcher.js';
import { readDeadline } from '../tokens/token-source.js';
import { DEFAULT_TOKEN_READ_TIMEOUT_MS, withReadTimeout } from '../tokens/read-timeout.js';

/** What a {@link TenantKeeper} is made from, once per receiver. */
export interface TenantKeeperOptions extends MatcherOptions {
  tenants: TenantResolver;
  lookupsPerSecond: number;
}

/** A failing resolver is asked again about a known tenant at most this often. */
const RETRY_MS = 1000;
/** A known site waits at most this long for its entry to be looked up again, then is answered from the old one. */
const STALE_AFTER_MS = 1000;
const REPORT_MS = 60_000;
const encoder = new TextEncoder();

/**
 * Check 2 in tenant mode: the presented token's SHA-256 finds its tenant through the
 * `tenants` resolver (cached), then the token is compared with the tenant's tokens in
 * constant time. Lookups of hashes never found are capped per second, so a flood of random
 * tokens costs at most that many resolver calls (past the cap the answer is 503, retried); a
 * known tenant whose entry expired is looked up again outside the cap, and answered from its
 * last good entry when that takes over a second or fails, so neither a flood nor a slow
 * resolver holds a real site up.
 */
export class TenantKeeper implements TokenMatcher {
  private readonly cache = new HashCache();
  private readonly pending = new Map<string, Promise<TenantEntry | undefined>>();
  private readonly deadline: number | undefined;
  private readonly budget: LookupBudget;
  private reportedAt = Number.NEGATIVE_INFINITY;
  private changed: (() => void) | undefined;

  constructor(private readonly options: TenantKeeperOptions) {
    this.deadline = readDeadline(options.rotatingUntil, options.now, 'createReceiver: rotatingUntil');
    this.budget = new LookupBudget(options.lookupsPerSecond, options.now);
  }

  match(authorization: string | undefined): MaybePromise<MatchedToken> {
    const start = bearerStart(authorization);
    return andThen(tokenSha256Hex(authorization!.slice(start)), (hash) => {
      const known = this.cache.known(hash);
      if (known && known.expiresAt <= this.options.now()) {
        return this.fresh(hash, known).then((entry) => this.decide(entry, authorization!, start));
      }
      if (known || this.cache.isUnknown(hash, this.options.now())) return this.decide(known, authorization!, start);
      return this.lookup(hash).then((found) => this.decide(found, authorization!, start));
    });
  }

  matchNow(authorization: string | undefined): MatchedToken | undefined {
    const start = bearerStart(authorization);
    const hash = tokenSha256Hex(authorization!.slice(start));
    if (typeof hash !== 'string') return undefined;
    const known = this.cache.known(hash);
    // A stale entry is looked up again before it answers: the body is read meanwhile.
    if (known && known.expiresAt <= this.options.now()) return undefined;
    if (!known && !this.cache.isUnknown(hash, this.options.now())) {
      // Refused here, before the body is read, when the lookup would be refused anyway.
      if (!this.budget.left()) throw this.budget.exhausted();
      return undefined;
    }
    try {
      return this.decide(known, authorization!, start);
    } catch (refusal) {
      if ((refusal as WebhookError).code === 'token_rotating') return undefined;
      throw refusal;
    }
  }

  async matchKept(tokenSha256: string): Promise<MatchedToken | undefined> {
    const known = this.cache.known(tokenSha256);
    let entry = known && known.expiresAt <= this.options.now() ? await this.fresh(tokenSha256, known) : known;
    if (!known) {
      // Kept requests share the cap with live ones: a kept flood is looked up over several passes.
      if (this.cache.isUnknown(tokenSha256, this.options.now()) || !this.budget.left()) return undefined;
      entry = await this.lookup(tokenSha256).catch(() => undefined);
    }
    return matchKeptIn(entry?.matches ?? [], tokenSha256);
  }

  rotatingUntil(): number | undefined {
    return this.deadline !== undefined && this.deadline > this.options.now() ? this.deadline : undefined;
  }

  refresh(): Promise<void> {
    // Kept requests are looked up again on each pass (matchKept); nothing is read ahead.
    return Promise.resolve();
  }

  onChange(listener: () => void): void {
    this.changed = listener;
  }

  /**
   * A known tenant's entry once it expired: looked up again, so a token removed from its site
   * stops working once the cache has expired; but a resolver slower than {@link STALE_AFTER_MS}
   * (or failing) leaves the site answered from its last good entry, never held up.
   */
  private fresh(hash: string, stale: TenantEntry): Promise<TenantEntry | undefined> {
    const refreshed = this.lookup(hash, stale);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<TenantEntry>((resolve) => {
      timer = setTimeout(() => resolve(stale), STALE_AFTER_MS);
      (timer as { unref?: () => void }).unref?.();
    });
    return Promise.race([refreshed.catch(() => stale), late]).finally(() => clearTimeout(timer));
  }

  private decide(entry: TenantEntry | undefined, authorization: string, start: number): MatchedToken {
    const index = entry ? findToken(entry.keys, authorization, start) : -1;
    if (index >= 0) return entry!.matches[index]!;
    const until = this.rotatingUntil();
    if (until === undefined || !plausibleToken(authorization, start)) throw unknownToken('tenants');
    throw new WebhookError(
      'token_rotating',
      `the Bearer token belongs to no tenant while a rotation window is armed until ${new Date(until).toISOString()}`,
    );
  }

  /**
   * One resolver call per hash at a time. A hash not known as a tenant's counts against the
   * cap; a known tenant's refresh (`previous`) does not, so a flood cannot lock a real site out.
   */
  private lookup(hash: string, previous?: TenantEntry): Promise<TenantEntry | undefined> {
    const running = this.pending.get(hash);
    if (running) return running;
    if (!previous) {
      try {
        this.budget.take();
      } catch (exhausted) {
        return Promise.reject(exhausted);
      }
    }
    const promise = this.resolve(hash, previous).finally(() => this.pending.delete(hash));
    this.pending.set(hash, promise);
    return promise;
  }

  private async resolve(hash: string, previous: TenantEntry | undefined): Promise<TenantEntry | undefined> {
    let tenant: CheckedTenant | undefined;
    try {
      // A lookup that takes too long fails (503, reported): a hung database must not hold requests forever.
      const timeoutMs = this.options.readTimeoutMs ?? DEFAULT_TOKEN_READ_TIMEOUT_MS;
      tenant = readTenant(await withReadTimeout(this.options.tenants(hash), timeoutMs, 'tenants'));
    } catch (cause) {
      const now = this.options.now();
      this.report(cause, now);
      // A failing resolver keeps a known tenant working on its last good answer.
      if (previous) {
        previous.expiresAt = now + RETRY_MS;
        return previous;
      }
      throw new WebhookError('token_unavailable', `the tenants resolver failed: ${describeThrown(cause)}`, { cause });
    }
    const now = this.options.now();
    if (!tenant) {
      this.cache.forget(hash, now);
      return undefined;
    }
    const entry = { expiresAt: now + this.options.cacheMs, ...this.prepare(tenant, previous) };
    this.cache.remember(hash, entry);
    if (!previous && this.rotatingUntil() !== undefined) this.changed?.();
    return entry;
  }

  private prepare(tenant: CheckedTenant, previous: TenantEntry | undefined) {
    const reused = new Map(previous?.keys.map((key) => [key.token, key]));
    const binding: TenantBinding = Object.freeze({
      ref: Object.freeze({ id: tenant.id }),
      profileId: tenant.profileId,
      domain: tenant.domain === undefined ? undefined : domainKey(tenant.domain),
      bind: (event: WebhookEvent) => checkTenant(event, binding),
    });
    const keys = tenant.tokens.map(
      (token) =>
        reused.get(token) ?? { token, bytes: encoder.encode(token), hmac: this.options.crypto.hmacSha256(token) },
    );
    return { keys, matches: keys.map((key, index) => ({ index, key, tenant: binding })) };
  }

  private report(cause: unknown, now: number): void {
    if (now - this.reportedAt < REPORT_MS) return;
    this.reportedAt = now;
    this.options.onReadFailed(
      new WebhookError('token_unavailable', `the tenants resolver failed: ${describeThrown(cause)}`, { cause }),
    );
  }
}
