import type { KeptRequest, KeptRequestStore } from '../../dedup/kept-requests.js';
import type { WebhookEvent } from '../../events/types.js';
import { bodyBytes } from '../../input/body.js';
import { headerLookup } from '../../input/headers.js';
import { describeThrown } from '../../internal/describe.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportRejection } from '../hooks.js';
import { tokenSha256Hex } from '../../crypto/token-sha256.js';
import { fromBase64, randomId, toBase64 } from './kept-encoding.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import { bearerStart } from '../tokens/token.js';
import type { MatchedToken } from '../tokens/token-matcher.js';
import { type DeliveryInput, type KeptInput, verifyDelivery } from '../verify-delivery.js';

/** The headers the checks read, kept with a request (the token itself only as its hash). */
const KEPT_HEADERS = ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id', 'x-service-event'];
// Kept requests outlive the window by this much in the store, so the pass that drops them at
// the window's end can still count them; the store's own expiry is only the backstop.
const EXPIRY_GRACE_MS = 60_000;

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
 * (across every instance on the store) as soon as a token verifies them.
 */
export class KeptDeliveries {
  private handlers: WebhookHandlers | undefined;
  private handled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retrying: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: KeptDeliveriesOptions) {}

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

  /** Keeps a request refused with `token_rotating`; resolves once stored (or refused by the bounds). */
  async keep(input: DeliveryInput): Promise<void> {
    const { config } = this.deps;
    const until = config.keeper.rotatingUntil();
    const bytes = bodyBytes(input.body, config.maxBodyBytes);
    if (until === undefined || bytes === undefined) return;
    const lookup = headerLookup(input.headers);
    const authorization = lookup('authorization')!;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = lookup(name);
      if (value !== undefined) headers[name] = value;
    }
    const request: KeptRequest = {
      id: randomId(),
      tokenSha256: await tokenSha256Hex(authorization.slice(bearerStart(authorization))),
      headers,
      body: toBase64(bytes),
      receivedAt: config.now(),
    };
    try {
      const limits = { maxCount: this.deps.maxCount, maxBytes: this.deps.maxBytes, until: until + EXPIRY_GRACE_MS };
      if (!(await this.deps.store.keep(request, limits))) {
        this.deps.report('the rotation window keeps no more requests (maxKeptRequests or maxKeptBytes reached)');
      }
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
    if (config.keeper.rotatingUntil() === undefined) {
      const dropped = await store.clear();
      if (dropped > 0) {
        this.deps.report(`the rotation window ended: ${dropped} kept request(s) that no token verified were dropped`);
      }
      return;
    }
    // Handlers come from the adapter's first `handle()`: before it, this instance cannot process.
    if (!this.handled) return;
    const kept = await store.list();
    for (const summary of kept) {
      // Tenant mode looks each hash up through `tenants` again: a site's new token finds its requests.
      const matched = await config.keeper.matchKept(summary.tokenSha256);
      if (!matched) continue;
      const request = await store.take(summary.id);
      if (request) await this.process(request, matched);
    }
  }

  /** One kept request, verified as of the time it arrived, through the same pipeline as a live one. */
  private async process(request: KeptRequest, matched: MatchedToken): Promise<void> {
    const { config, options, pipeline } = this.deps;
    const input: KeptInput = {
      headers: { ...request.headers, authorization: `Bearer ${matched.key.token}` },
      body: fromBase64(request.body),
      receivedAt: request.receivedAt,
    };
    let event: WebhookEvent;
    try {
      const admitted = { headers: headerLookup(input.headers), matched };
      event = await verifyDelivery({ ...config, now: () => request.receivedAt }, input, admitted);
    } catch (thrown) {
      // Its token is known but it does not verify: never processed, and the refusal is reported as usual.
      reportRejection(options, thrown, input.headers);
      return;
    }
    const answer = await pipeline(event, this.handlers, input);
    // A failure the service would have retried: keep it for the next pass while the window lasts.
    const until = config.keeper.rotatingUntil();
    if (answer.status >= 500 && until !== undefined) {
      const limits = { maxCount: this.deps.maxCount, maxBytes: this.deps.maxBytes, until: until + EXPIRY_GRACE_MS };
      await this.deps.store.keep(request, limits);
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
