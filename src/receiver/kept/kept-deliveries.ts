import type { KeepLimits, KeptRequest, KeptRequestStore, KeptSummary } from '../../dedup/kept-requests.js';
import { bodyBytes } from '../../input/body.js';
import { headerLookup } from '../../input/headers.js';
import { describeThrown } from '../../internal/describe.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportRejection } from '../hooks.js';
import { tokenSha256Hex } from '../../crypto/token-sha256.js';
import { DEFAULT_TENANT_LOOKUPS_PER_SECOND } from '../tenants/tenant.js';
import { WebhookError } from '../../errors/webhook-error.js';
import type { HeadersInput } from '../../input/headers.js';
import { KeptCensus } from './kept-census.js';
import { KeepingReads } from './kept-gate.js';
import { toBase64 } from './kept-encoding.js';
import { keepableSize, keptHeaders, verifiable } from './kept-headers.js';
import { verifyKept } from './kept-verify.js';
import { deliveryKey, keptId } from './kept-id.js';
import { KeptLookups } from './kept-lookups.js';
import { KeptNotice } from './kept-notice.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import { bearerStart } from '../tokens/token.js';
import type { MatchedToken } from '../tokens/token-matcher.js';
import type { DeliveryInput } from '../verify-delivery.js';

// Kept requests outlive the window by this much in the store, so the pass that drops them at
// the window's end can still count them; the store's own expiry is only the backstop.
const EXPIRY_GRACE_MS = 60_000;
/** How stale this receiver's picture of the store may be when a request is kept. */
const CENSUS_MS = 1000;
/** The most kept requests one newcomer may push out (a large body in a store full of small ones). */
const MAX_EVICTIONS = 64;

/** What kept deliveries are built from, once per receiver. */
export interface KeptDeliveriesOptions {
  config: VerifyConfig;
  options: ReceiverOptions;
  pipeline: Pipeline;
  store: KeptRequestStore;
  maxCount: number;
  maxBytes: number;
  cacheMs: number;
  /** Receiver-wide faults (a kept request that failed to store), for the log or `onError`. */
  report: (message: string) => void;
}

/**
 * Requests answered 503 during a rotation window: kept in the store, re-checked whenever the
 * token list changes and at least every `tokenCacheMs` while any are kept, and processed once
 * (across every instance on the store) as soon as a token verifies them. When the store is
 * full, requests share it fairly by the token they presented (see {@link KeptCensus}).
 */
export class KeptDeliveries {
  private handlers: WebhookHandlers | undefined;
  private handled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retrying: Promise<void> | undefined;
  private again = false;
  private readonly census = new KeptCensus();
  private readonly notice: KeptNotice;
  private readonly lookups: KeptLookups;
  private readonly reads: KeepingReads;

  constructor(private readonly deps: KeptDeliveriesOptions) {
    const { options, config, report } = deps;
    this.notice = new KeptNotice(config.now, report);
    this.reads = new KeepingReads(config.now);
    const tenantMode = options.tenants !== undefined;
    this.lookups = new KeptLookups(
      tenantMode ? (options.tenantLookupsPerSecond ?? DEFAULT_TENANT_LOOKUPS_PER_SECOND) : undefined,
      config.now,
    );
  }

  /**
   * Called on every `handle()`: remembers the handlers the adapter gives, which kept requests
   * are processed with, and starts the re-check timer when a window is armed.
   */
  touch(handlers: WebhookHandlers | undefined): void {
    this.handlers = handlers;
    if (!this.handled) {
      this.handled = true;
      // A new instance may find requests another instance kept before it started.
      if (this.deps.config.keeper.rotatingUntil() !== undefined) void this.retry();
    }
    if (this.timer === undefined && this.deps.config.keeper.rotatingUntil() !== undefined) this.schedule();
  }

  /**
   * At `createReceiver`: requests kept before this receiver started (by an instance since
   * redeployed) are re-checked now and every `tokenCacheMs` while any remain, with no new
   * delivery needed. Resolves once the first check is done; never rejects.
   */
  async start(): Promise<void> {
    let listed: readonly KeptSummary[];
    try {
      listed = await this.deps.store.list();
    } catch (cause) {
      // Unarmed (a token source not read yet, a store whose kept table was never made because
      // no window ever armed) this is no fault yet: a pass in a window reports its own.
      if (this.deps.config.keeper.rotatingUntil() !== undefined) {
        this.deps.report(`kept requests could not be listed at start: ${describeThrown(cause)}`);
      }
      return;
    }
    if (listed.length === 0) return;
    this.census.replace(listed, this.deps.config.now());
    await this.deps.config.keeper.refresh();
    // Unarmed after the read: a source that disarmed had its good read reach `onChange`, whose
    // pass processes what verifies and drops the rest; a read that failed must drop nothing.
    if (this.deps.config.keeper.rotatingUntil() === undefined) return;
    await this.retry();
    this.schedule();
  }

  /**
   * At a request's head, once check 2 answered `token_rotating`: the refusal to answer without
   * reading its body when it would not be kept (headers no token could verify, a declared size
   * of 0 or over `maxKeptBytes`, a full store where its token already has its share, or
   * four bodies already being read to keep); undefined when its body is
   * to be read and kept (it then holds one of those places until `keep`).
   */
  head(headers: HeadersInput): WebhookError | undefined {
    try {
      return this.refusalOnHead(headers);
    } catch {
      // Headers that cannot be read here were admitted anyway: the body decides, as before.
      return undefined;
    }
  }

  private refusalOnHead(headers: HeadersInput): WebhookError | undefined {
    const until = this.deps.config.keeper.rotatingUntil();
    if (until === undefined) return undefined;
    const lookup = headerLookup(headers);
    const refusal = new WebhookError(
      'token_rotating',
      `the Bearer token matches none of the configured tokens while a rotation window is armed until ${new Date(until).toISOString()}; the request is not kept, so its body was not read`,
    );
    if (!verifiable(lookup)) return refusal;
    if (!keepableSize(lookup, this.deps.maxBytes)) {
      this.notice.notKept();
      return refusal;
    }
    const authorization = lookup('authorization')!;
    const hash = tokenSha256Hex(authorization.slice(bearerStart(authorization)));
    // Where hashing is synchronous (node:crypto), a token whose share is taken is refused here; else at `keep`.
    if (typeof hash === 'string' && this.census.full(this.deps.maxCount) && !this.census.wins(hash)) {
      this.notice.notKept();
      return refusal;
    }
    if (!this.reads.take(headers as object)) {
      this.notice.notRead();
      return refusal;
    }
    return undefined;
  }

  /** Keeps a request refused with `token_rotating`; resolves once stored (or refused by the bounds). */
  async keep(input: DeliveryInput): Promise<void> {
    try {
      await this.keepNow(input);
    } finally {
      this.reads.release(input.headers);
    }
  }

  private async keepNow(input: DeliveryInput): Promise<void> {
    const { config, store } = this.deps;
    const until = config.keeper.rotatingUntil();
    if (until === undefined) return;
    const lookup = headerLookup(input.headers);
    // A request no token could ever verify (the `rotation` check's own probe, a bare POST) is not kept.
    if (!verifiable(lookup)) return;
    const bytes = bodyBytes(input.body, config.maxBodyBytes);
    if (bytes === undefined || bytes.byteLength === 0) return;
    const authorization = lookup('authorization')!;
    const tokenSha256 = await tokenSha256Hex(authorization.slice(bearerStart(authorization)));
    const delivery = await deliveryKey(lookup('x-service-delivery-id')!);
    try {
      await this.look(false);
      // Its token already has its share of a full store: refused before the body is encoded.
      if (this.census.full(this.deps.maxCount) && !this.census.wins(tokenSha256)) {
        this.notice.notKept();
        return;
      }
      const headers = keptHeaders(lookup);
      const receivedAt = config.now();
      const request: KeptRequest = {
        id: keptId(receivedAt, delivery),
        tokenSha256,
        headers,
        body: toBase64(bytes),
        receivedAt,
      };
      // The service's retry of a delivery already kept from this token replaces it.
      for (const id of this.census.copiesOf(tokenSha256, delivery)) {
        await store.take(id);
        this.census.remove(id, tokenSha256);
      }
      if (!(await this.place(request, this.limits(until)))) this.notice.notKept();
    } catch (cause) {
      this.deps.report(`a request could not be kept during the rotation window: ${describeThrown(cause)}`);
    }
    this.schedule();
  }

  /**
   * Processes every kept request a current token verifies; drops them all once the window has
   * ended. One pass at a time; a call during a pass runs one more pass after it.
   */
  retry(): Promise<void> {
    if (this.retrying) {
      this.again = true;
      return this.retrying;
    }
    this.retrying = this.pass()
      .catch((cause: unknown) => this.deps.report(`kept requests could not be checked: ${describeThrown(cause)}`))
      .finally(() => {
        this.retrying = undefined;
        if (this.again) {
          this.again = false;
          void this.retry();
        }
      });
    return this.retrying;
  }

  private async pass(): Promise<void> {
    const { config, store } = this.deps;
    const ended = config.keeper.rotatingUntil() === undefined;
    this.notice.tell();
    // Without handlers this instance cannot process (see `processable`); it still drops at the end.
    if (this.processable()) {
      await this.look(true);
      // Checked against the current tokens even when the window just ended: an edit that adds
      // the new token and disarms at once must not drop what the new token verifies.
      await this.processVerified();
    }
    if (!ended) return;
    const dropped = await store.clear();
    this.census.replace([], config.now());
    if (dropped > 0) {
      this.deps.report(`the rotation window ended: ${dropped} kept request(s) that no token verified were dropped`);
    }
  }

  /**
   * Whether kept requests can be processed here: with the handlers an adapter gave on a
   * delivery, the `handlers` option, or in queue mode (a worker runs the handlers).
   */
  private processable(): boolean {
    const { options } = this.deps;
    return this.handled || options.handlers !== undefined || options.queue !== undefined;
  }

  /** Each distinct token hash kept is asked about once; what its token verifies is processed. */
  private async processVerified(): Promise<void> {
    const { config, store } = this.deps;
    for (const hash of this.lookups.order(this.census.hashes())) {
      this.lookups.asked(hash);
      // Tenant mode looks each hash up through `tenants` again: a site's new token finds its requests.
      const matched = await config.keeper.matchKept(hash);
      if (!matched) continue;
      for (const id of this.census.idsOf(hash)) {
        const request = await store.take(id);
        this.census.remove(id, hash);
        if (request) await this.process(request, matched);
      }
    }
  }

  /** Refreshes this receiver's picture of the store: always, or when older than {@link CENSUS_MS}. */
  private async look(always: boolean): Promise<void> {
    const now = this.deps.config.now();
    if (!always && now - this.census.listedAt < CENSUS_MS) return;
    this.census.replace(await this.deps.store.list(), now);
  }

  /** Keeps a request, the largest group's oldest giving way while the store is full and it may. */
  private async place(request: KeptRequest, limits: KeepLimits): Promise<boolean> {
    const { store } = this.deps;
    for (let evictions = 0; ; evictions++) {
      const accepted = await store.keep(request, limits);
      this.census.kept(accepted);
      if (accepted) {
        this.census.add(request.id, request.tokenSha256);
        return true;
      }
      // Each eviction is followed by a keep, so racing keepers never leave the store below full.
      if (evictions === MAX_EVICTIONS) return false;
      // Refused: another instance may have filled the store, so look again (at most once a second).
      if (evictions === 0) await this.look(false);
      const victim = this.census.victimFor(request.tokenSha256);
      if (!victim) return false;
      if (await store.take(victim.id)) this.notice.gaveWay();
      this.census.remove(victim.id, victim.tokenSha256);
    }
  }

  private limits(until: number): KeepLimits {
    return { maxCount: this.deps.maxCount, maxBytes: this.deps.maxBytes, until: until + EXPIRY_GRACE_MS };
  }

  /** One kept request, verified as of the time it arrived, through the same pipeline as a live one. */
  private async process(request: KeptRequest, matched: MatchedToken): Promise<void> {
    const { config, options, pipeline } = this.deps;
    let verified: Awaited<ReturnType<typeof verifyKept>>;
    try {
      verified = await verifyKept(config, request, matched);
    } catch (thrown) {
      // Its token is known but it does not verify: never processed, and the refusal is reported as usual.
      reportRejection(options, thrown, request.headers);
      return;
    }
    const { event, input } = verified;
    const answer = await pipeline(event, this.handlers ?? options.handlers, input);
    // A failure the service would have retried: keep it for the next pass while the window lasts.
    const until = config.keeper.rotatingUntil();
    if (answer.status >= 500 && until !== undefined && (await this.deps.store.keep(request, this.limits(until)))) {
      this.census.add(request.id, request.tokenSha256);
    }
  }

  /** The next pass: after `tokenCacheMs`, or when the window ends if sooner; never holds the process open. */
  private schedule(): void {
    if (this.timer !== undefined) return;
    const until = this.deps.config.keeper.rotatingUntil();
    const now = this.deps.config.now();
    const delay = until === undefined ? 0 : Math.min(this.deps.cacheMs, Math.max(0, until - now) + 1);
    let timer: ReturnType<typeof setTimeout>;
    try {
      timer = setTimeout(() => {
        this.timer = undefined;
        void this.deps.config.keeper
          .refresh()
          .then(() => this.retry())
          .then(() => {
            this.notice.tell();
            if (this.deps.config.keeper.rotatingUntil() !== undefined) this.schedule();
          });
      }, delay);
    } catch {
      // A host that allows no timer here (a Worker's global scope): the next request re-checks.
      return;
    }
    this.timer = timer;
    // Workers and browsers answer a number, which has no unref.
    (timer as { unref?: () => void }).unref?.();
  }
}
