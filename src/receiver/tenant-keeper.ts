import { tokenSha256Hex } from '../crypto/token-sha256.js';
import type { CryptoProvider } from '../crypto/provider.js';
import { WebhookError } from '../errors/webhook-error.js';
import { describeThrown } from '../internal/describe.js';
import { andThen, type MaybePromise } from '../internal/maybe.js';
import { LookupBudget } from './lookup-budget.js';
import { readTenant } from './tenant-shape.js';
import type { TenantBinding, TenantResolver } from './tenant.js';
import { bearerStart, findToken, plausibleToken, type TokenKey, unknownToken } from './token.js';
import type { MatchedToken, TokenMatcher } from './token-matcher.js';
import { readDeadline } from './token-source.js';

/** What a {@link TenantKeeper} is made from, once per receiver. */
export interface TenantKeeperOptions {
  tenants: TenantResolver;
  rotatingUntil?: unknown;
  cacheMs: number;
  lookupsPerSecond: number;
  crypto: CryptoProvider;
  now: () => number;
  /** A failed lookup, at most once a minute. */
  onReadFailed: (error: WebhookError) => void;
}

/** A hash's answer: the tenant's prepared tokens, or none for an unknown hash. */
interface Entry {
  expiresAt: number;
  keys: readonly TokenKey[];
  matches: readonly MatchedToken[];
}

/** Unknown hashes are kept this long: a regenerated token is found within a second. */
const UNKNOWN_MS = 1000;
const REPORT_MS = 60_000;
/** Past this many cached hashes, expired ones are swept (and the oldest dropped if need be). */
const MAX_ENTRIES = 10_000;
const UNKNOWN: Omit<Entry, 'expiresAt'> = { keys: [], matches: [] };
const encoder = new TextEncoder();

/**
 * Check 2 in tenant mode: the presented token's SHA-256 finds its tenant through the
 * `tenants` resolver (cached), then the token is compared with the tenant's tokens in
 * constant time. Lookups of uncached hashes are capped per second, so a flood of random
 * tokens costs at most that many resolver calls; past the cap the answer is 503, retried.
 */
export class TenantKeeper implements TokenMatcher {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();
  private readonly hashes = new WeakMap<TokenKey, MaybePromise<string>>();
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
      const entry = this.cache.get(hash);
      if (entry && entry.expiresAt > this.options.now()) return this.decide(entry, authorization!, start);
      return this.lookup(hash, entry).then((found) => this.decide(found, authorization!, start));
    });
  }

  matchNow(authorization: string | undefined): MatchedToken | undefined {
    const start = bearerStart(authorization);
    const hash = tokenSha256Hex(authorization!.slice(start));
    if (typeof hash !== 'string') return undefined;
    const entry = this.cache.get(hash);
    if (!entry || entry.expiresAt <= this.options.now()) {
      // Refused here, before the body is read, when the lookup would be refused anyway.
      if ((!entry || entry.matches.length === 0) && !this.budget.left()) throw this.budget.exhausted();
      return undefined;
    }
    try {
      return this.decide(entry, authorization!, start);
    } catch (refusal) {
      if ((refusal as WebhookError).code === 'token_rotating') return undefined;
      throw refusal;
    }
  }

  async matchKept(tokenSha256: string): Promise<MatchedToken | undefined> {
    const cached = this.cache.get(tokenSha256);
    let entry: Entry;
    try {
      entry = cached && cached.expiresAt > this.options.now() ? cached : await this.lookup(tokenSha256, cached, false);
    } catch {
      return undefined;
    }
    for (const match of entry.matches) {
      if ((await this.hashOf(match.key)) === tokenSha256) return match;
    }
    return undefined;
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

  private decide(entry: Entry, authorization: string, start: number): MatchedToken {
    const index = findToken(entry.keys, authorization, start);
    if (index >= 0) return entry.matches[index]!;
    const until = this.rotatingUntil();
    if (until === undefined || !plausibleToken(authorization, start)) throw unknownToken();
    throw new WebhookError(
      'token_rotating',
      `the Bearer token belongs to no tenant while a rotation window is armed until ${new Date(until).toISOString()}`,
    );
  }

  /**
   * One resolver call per hash at a time. A hash never seen (or forgotten) counts against the
   * cap; a known tenant's refresh does not, so a flood cannot lock a real site out.
   */
  private lookup(
    hash: string,
    previous: Entry | undefined,
    capped = !(previous && previous.matches.length > 0),
  ): Promise<Entry> {
    const running = this.pending.get(hash);
    if (running) return running;
    if (capped) {
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

  private async resolve(hash: string, previous: Entry | undefined): Promise<Entry> {
    let tenant: ReturnType<typeof readTenant>;
    try {
      tenant = readTenant(await this.options.tenants(hash));
    } catch (cause) {
      const now = this.options.now();
      // A failing resolver keeps a known tenant working on its last good answer.
      if (previous && previous.matches.length > 0) {
        previous.expiresAt = now + UNKNOWN_MS;
        this.report(cause, now);
        return previous;
      }
      this.report(cause, now);
      throw new WebhookError('token_unavailable', `the tenants resolver failed: ${describeThrown(cause)}`, { cause });
    }
    const now = this.options.now();
    const entry: Entry = tenant
      ? { expiresAt: now + this.options.cacheMs, ...this.prepare(tenant, previous) }
      : { expiresAt: now + UNKNOWN_MS, ...UNKNOWN };
    this.remember(hash, entry, now);
    if (tenant && !(previous && previous.matches.length > 0)) this.changed?.();
    return entry;
  }

  private prepare(tenant: NonNullable<ReturnType<typeof readTenant>>, previous: Entry | undefined) {
    const known = new Map(previous?.keys.map((key) => [key.token, key]));
    const binding: TenantBinding = Object.freeze({
      ref: Object.freeze({ id: tenant.id }),
      profileId: tenant.profileId,
      domain: tenant.domain?.toLowerCase(),
    });
    const keys = tenant.tokens.map(
      (token) =>
        known.get(token) ?? { token, bytes: encoder.encode(token), hmac: this.options.crypto.hmacSha256(token) },
    );
    return { keys, matches: keys.map((key, index) => ({ index, key, tenant: binding })) };
  }

  private remember(hash: string, entry: Entry, now: number): void {
    this.cache.delete(hash);
    this.cache.set(hash, entry);
    if (this.cache.size <= MAX_ENTRIES) return;
    for (const [key, value] of this.cache) if (value.expiresAt <= now) this.cache.delete(key);
    for (const key of this.cache.keys()) {
      if (this.cache.size <= MAX_ENTRIES) break;
      this.cache.delete(key);
    }
  }

  private report(cause: unknown, now: number): void {
    if (now - this.reportedAt < REPORT_MS) return;
    this.reportedAt = now;
    this.options.onReadFailed(
      new WebhookError('token_unavailable', `the tenants resolver failed: ${describeThrown(cause)}`, { cause }),
    );
  }

  private hashOf(key: TokenKey): MaybePromise<string> {
    let hash = this.hashes.get(key);
    if (hash === undefined) {
      hash = tokenSha256Hex(key.token);
      this.hashes.set(key, hash);
    }
    return hash;
  }
}
