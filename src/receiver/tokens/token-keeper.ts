import { WebhookError } from '../../errors/webhook-error.js';
import { describeThrown } from '../../internal/describe.js';
import type { MaybePromise } from '../../internal/maybe.js';
import { bearerStart, findToken, plausibleToken, type TokenKey, unknownToken } from './token.js';
import type { MatchedToken, MatcherOptions, TokenMatcher } from './token-matcher.js';
import { readDeadline, readTokenList, type TokenSource } from './token-source.js';
import { matchesOf, matchKeptIn, prepareKeys } from './fixed-tokens.js';
import { DEFAULT_TOKEN_READ_TIMEOUT_MS, withReadTimeout } from './read-timeout.js';

export type { MatchedToken } from './token-matcher.js';

/** What a {@link TokenKeeper} is made from, once per receiver. */
export interface TokenKeeperOptions extends MatcherOptions {
  token: unknown;
}

/** A wrong token re-reads the source at most this often: a flood costs one read a second. */
const MISS_READ_MS = 1000;
const REPORT_MS = 60_000;

/**
 * The receiver's tokens: fixed, or read from a token source and kept for `tokenCacheMs`, plus
 * the rotation window. Check 2 goes through {@link TokenKeeper.match}; this is the one place
 * that knows where tokens come from, so other modes (tenants) can build on it.
 */
export class TokenKeeper implements TokenMatcher {
  private keys: readonly TokenKey[] | undefined;
  // One match object per token of the current list, made with the list: a delivery allocates none.
  private matches: readonly MatchedToken[] = [];
  private sourceDeadline: number | undefined;
  private readonly optionDeadline: number | undefined;
  private readonly source: TokenSource | undefined;
  private nextReadAt = Number.NEGATIVE_INFINITY;
  private missReadAt = Number.NEGATIVE_INFINITY;
  private reportedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private changed: (() => void) | undefined;

  constructor(private readonly options: TokenKeeperOptions) {
    const now = options.now;
    this.optionDeadline = readDeadline(options.rotatingUntil, now, 'createReceiver: rotatingUntil');
    if (typeof options.token === 'function') {
      this.source = options.token as TokenSource;
    } else {
      this.keys = this.prepare(readTokenList(options.token, now, 'createReceiver: token').tokens);
    }
  }

  /** True when tokens come from a source that may change them. */
  get dynamic(): boolean {
    return this.source !== undefined;
  }

  /** The last good list, or undefined before the first good read. */
  current(): readonly TokenKey[] | undefined {
    return this.keys;
  }

  /** The end of the rotation window in epoch ms while it is armed; undefined otherwise. */
  rotatingUntil(): number | undefined {
    const deadline = this.sourceDeadline ?? this.optionDeadline;
    return deadline !== undefined && deadline > this.options.now() ? deadline : undefined;
  }

  /**
   * Check 2 against the current list. Synchronous once a good list exists and the token is
   * known: a stale list starts a read in the background and answers meanwhile
   * (stale-while-revalidate), so a slow source never holds a known token. Before the first good
   * list, waits for the read; a token that matches none waits for a read at once (at most once
   * a second). Every read ends within `readTimeoutMs`. Throws or rejects with the refusal.
   */
  match(authorization: string | undefined): MaybePromise<MatchedToken> {
    const start = bearerStart(authorization);
    if (this.stale()) {
      const reading = this.read();
      if (!this.keys) return reading.then(() => this.decide(authorization!, start, true));
    }
    return this.decide(authorization!, start, false);
  }

  /**
   * {@link match} for a request's head, which cannot wait: the match, a refusal thrown, or
   * undefined when the answer needs a read of the source or the body (a request kept during a
   * rotation window), so the body is read and the check made again.
   */
  matchNow(authorization: string | undefined): MatchedToken | undefined {
    const start = bearerStart(authorization);
    const now = this.options.now();
    if (this.stale(now)) {
      if (!this.keys) return undefined;
      // Refreshed in the background: the current list answers meanwhile.
      void this.read();
    }
    const keys = this.available();
    const index = findToken(keys, authorization!, start);
    if (index >= 0) return this.matches[index]!;
    if (this.source && now - this.missReadAt >= MISS_READ_MS) return undefined;
    const refusal = this.refusal(authorization!, start);
    if (refusal.code === 'token_rotating') return undefined;
    throw refusal;
  }

  /** The current token whose SHA-256 hex is this, for a kept request. */
  matchKept(tokenSha256: string): Promise<MatchedToken | undefined> {
    return this.keys ? matchKeptIn(this.matches, tokenSha256) : Promise.resolve(undefined);
  }

  /** Calls `listener` whenever a read changes the token list (kept requests are then re-checked). */
  onChange(listener: () => void): void {
    this.changed = listener;
  }

  /** Reads the source now (one read at a time); resolves once the list is settled, never rejects. */
  refresh(): Promise<void> {
    return this.source ? this.read() : Promise.resolve();
  }

  /** True when the tokens come from a source and its last answer (or failure) is due a new read. */
  private stale(now = this.options.now()): boolean {
    return this.source !== undefined && now >= this.nextReadAt;
  }

  private decide(authorization: string, start: number, justRead: boolean): MaybePromise<MatchedToken> {
    const keys = this.available();
    const index = findToken(keys, authorization, start);
    if (index >= 0) return this.matches[index]!;
    const now = this.options.now();
    if (this.source && !justRead && now - this.missReadAt >= MISS_READ_MS) {
      this.missReadAt = now;
      return this.read().then(() => this.decide(authorization, start, true));
    }
    throw this.refusal(authorization, start);
  }

  private available(): readonly TokenKey[] {
    if (this.keys) return this.keys;
    throw new WebhookError(
      'token_unavailable',
      'the token source has not given a usable token yet (see the error reported to onError)',
    );
  }

  private refusal(authorization: string, start: number): WebhookError {
    const until = this.rotatingUntil();
    if (until === undefined || !plausibleToken(authorization, start)) return unknownToken();
    return new WebhookError(
      'token_rotating',
      `the Bearer token matches none of the configured tokens while a rotation window is armed until ${new Date(until).toISOString()}`,
    );
  }

  private read(): Promise<void> {
    if (!this.reading) {
      this.reading = this.load().finally(() => {
        this.reading = undefined;
      });
    }
    return this.reading;
  }

  private async load(): Promise<void> {
    try {
      const timeoutMs = this.options.readTimeoutMs ?? DEFAULT_TOKEN_READ_TIMEOUT_MS;
      const value = await withReadTimeout(this.source!(), timeoutMs, 'the token source');
      const now = this.options.now();
      const list = readTokenList(value, () => now, 'the token source');
      const before = this.keys;
      this.keys = this.prepare(list.tokens);
      this.sourceDeadline = list.rotatingUntil;
      if (!before || before.length !== this.keys.length || before.some((key, i) => key !== this.keys![i])) {
        this.changed?.();
      }
      this.nextReadAt = now + this.options.cacheMs;
      // The tokens are good even when the window is not: a bad deadline must not cost the new token.
      if (list.windowProblem) {
        this.report(
          now,
          `the token source's answer is used without its rotation window: ${list.windowProblem.message}`,
          list.windowProblem,
        );
      }
    } catch (cause) {
      const now = this.options.now();
      // A failing source is tried again a second later, not on every request.
      this.nextReadAt = now + MISS_READ_MS;
      const kept = this.keys ? 'the last good token list is kept' : 'deliveries are answered 503 until a read works';
      this.report(now, `the token source failed (${kept}): ${describeThrown(cause)}`, cause);
    }
  }

  /** Tells onError about a read that failed in whole or in part, at most once a minute. */
  private report(now: number, reason: string, cause: unknown): void {
    if (now - this.reportedAt < REPORT_MS) return;
    this.reportedAt = now;
    this.options.onReadFailed(new WebhookError('token_unavailable', reason, { cause }));
  }

  /** Verifiers for a list, reusing those of tokens already known so a re-read costs no key setup. */
  private prepare(tokens: readonly string[]): readonly TokenKey[] {
    const keys = prepareKeys(tokens, this.options.crypto, this.keys);
    this.matches = matchesOf(keys);
    return keys;
  }
}
