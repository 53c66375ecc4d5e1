import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nodeCryptoProvider } from '../../crypto/node-crypto.js';
import {
  type KeepLimits,
  type KeptRequest,
  type KeptRequestStore,
  memoryKeptRequests,
} from '../../dedup/kept-requests.js';
import type { WebhookEvent } from '../../events/types.js';
import type { Answer } from '../answers.js';
import { FixedTokens } from '../tokens/fixed-tokens.js';
import type { WebhookHandlers } from '../handlers.js';
import { KeptDeliveries } from './kept-deliveries.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import type { TokenMatcher } from '../tokens/token-matcher.js';
import type { DeliveryInput } from '../verify-delivery.js';

// The rotation window's kept requests on fake timers, with a scripted token matcher and a
// store that records what it is asked: when passes run, what each keeps, drops and reports.
// The rotation suites (test/rotation) prove the window end to end; these pin its timing.

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const NEW = 'kept-unit-new-token-9876';
const OLD = 'kept-unit-old-token-0123';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A `test` delivery signed with `token` now, as the service sends it. */
function signed(token: string, id = 'kept-1', signedWith = token): DeliveryInput {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({ event: 'test', timestamp: Number(timestamp), article: null, profile: null });
  const mac = createHmac('sha256', signedWith).update(`${timestamp}.${body}`).digest('hex');
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${mac}`,
    'x-service-delivery-id': id,
    'x-service-event': 'test',
  };
  return { headers, body };
}

interface Setup {
  /** The end of the window; undefined: no window. It also ends once the fake clock passes it. */
  until?: number;
  cacheMs?: number;
  store?: Partial<KeptRequestStore>;
  /** More receiver options (`handlers`, `queue`). */
  receiver?: Partial<ReceiverOptions>;
}

function setup(options: Setup = {}) {
  const state = { until: 'until' in options ? options.until : T0 + HOUR, known: new Set<string>(), refreshes: 0 };
  const fixed = new FixedTokens([NEW, OLD], nodeCryptoProvider());
  const keeper: TokenMatcher = {
    match: () => {
      throw new Error('a kept request is matched by its token hash, never by check 2 again');
    },
    matchNow: () => undefined,
    matchKept: async (hash) => {
      const token = [...state.known].find((known) => sha256(known) === hash);
      return token === undefined ? undefined : fixed.match(`Bearer ${token}`);
    },
    rotatingUntil: () => (state.until !== undefined && Date.now() < state.until ? state.until : undefined),
    refresh: async () => void state.refreshes++,
    onChange: () => {},
  };
  const memory = memoryKeptRequests(() => Date.now());
  const calls = { kept: [] as { request: KeptRequest; limits: KeepLimits }[], lists: 0, clears: 0 };
  const store: KeptRequestStore = {
    keep: (request, limits) => {
      calls.kept.push({ request, limits });
      return memory.keep(request, limits);
    },
    list: () => {
      calls.lists++;
      return memory.list();
    },
    take: (id) => memory.take(id),
    clear: () => {
      calls.clears++;
      return memory.clear();
    },
    ...options.store,
  };
  const processed: { event: WebhookEvent; handlers: WebhookHandlers | undefined; input: DeliveryInput }[] = [];
  const answer = { status: 200, during: () => {} };
  const pipeline: Pipeline = (event, handlers, input) => {
    processed.push({ event, handlers, input: input! });
    answer.during();
    return { status: answer.status, body: { ok: answer.status < 400 } } as Answer;
  };
  const reports: string[] = [];
  const rejected: string[] = [];
  const kept = new KeptDeliveries({
    config: { keeper, toleranceSeconds: 300, maxBodyBytes: 1 << 20, now: () => Date.now() },
    options: {
      token: NEW,
      logger: false,
      onRejected: (error) => void rejected.push(error.code),
      ...options.receiver,
    } as ReceiverOptions,
    pipeline,
    store,
    maxCount: 10,
    maxBytes: 1 << 20,
    cacheMs: options.cacheMs ?? 1000,
    report: (message) => void reports.push(message),
  });
  return { kept, state, calls, memory, processed, answer, reports, rejected };
}

/** Lets every promise chain started so far run to its end (only timers are fake). */
async function settle() {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const handlers: WebhookHandlers = { test: () => {} };

beforeEach(() => void vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('KeptDeliveries: what a kept request holds and how it is processed', () => {
  it('stores the four signed headers and the token hash, and processes with the matched token', async () => {
    const { kept, state, calls, processed, reports } = setup();
    await kept.keep(signed(NEW));
    expect(calls.kept).toHaveLength(1);
    const [{ request, limits }] = calls.kept as [{ request: KeptRequest; limits: KeepLimits }];
    expect(request.tokenSha256).toBe(sha256(NEW));
    expect(Object.keys(request.headers).sort()).toEqual([
      'x-service-delivery-id',
      'x-service-event',
      'x-service-signature',
      'x-service-timestamp',
    ]);
    expect(limits).toEqual({ maxCount: 10, maxBytes: 1 << 20, until: T0 + HOUR + 60_000 });
    kept.touch(handlers);
    state.known.add(NEW);
    await kept.retry();
    expect(processed).toHaveLength(1);
    expect(processed[0]!.handlers).toBe(handlers);
    expect(processed[0]!.event).toMatchObject({ name: 'test', deliveryId: 'kept-1', tokenIndex: 0 });
    expect(processed[0]!.input.headers).toEqual({ ...request.headers, authorization: `Bearer ${NEW}` });
    expect(reports).toEqual([]);
  });

  it('keeps nothing when the window ended before the request is kept, or its body is not raw bytes', async () => {
    const ended = setup({ until: undefined });
    await ended.kept.keep(signed(NEW));
    expect(ended.calls.kept).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    const parsed = setup();
    // A body a parser got to first (a host fault, answered 500 by verification): nothing to keep.
    const parsedBody = { event: 'test' } as unknown as Uint8Array;
    await parsed.kept.keep({ headers: signed(NEW).headers, body: parsedBody });
    expect(parsed.calls.kept).toEqual([]);
    expect(parsed.reports).toEqual([]);
  });

  it('reports a store that fails to keep, and still schedules the re-check', async () => {
    const failing = new Error('the disk is full');
    const { kept, reports } = setup({
      store: {
        keep: () => {
          throw failing;
        },
      },
    });
    await kept.keep(signed(NEW));
    expect(reports).toEqual([`a request could not be kept during the rotation window: ${String(failing)}`]);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('processes nothing before the first handle(), which gives the handlers', async () => {
    const { kept, state, memory, processed } = setup();
    await kept.keep(signed(NEW));
    state.known.add(NEW);
    await kept.retry();
    expect(processed).toEqual([]);
    expect(await memory.list()).toHaveLength(1);
  });

  it('leaves a request another instance took first, without a report', async () => {
    const { kept, state, processed, reports } = setup({ store: { take: () => undefined } });
    await kept.keep(signed(NEW));
    kept.touch(handlers);
    state.known.add(NEW);
    await kept.retry();
    expect(processed).toEqual([]);
    expect(reports).toEqual([]);
  });

  it('refuses, as a live request would be, a kept request that does not verify with the matched token', async () => {
    const { kept, state, memory, processed, rejected } = setup();
    await kept.keep(signed(NEW, 'forged', 'some-other-secret'));
    kept.touch(handlers);
    state.known.add(NEW);
    await kept.retry();
    expect(processed).toEqual([]);
    expect(rejected).toEqual(['invalid_signature']);
    expect(await memory.list()).toEqual([]);
  });

  it('keeps a request again after a 5xx while the window lasts, never after a 2xx', async () => {
    const { kept, state, calls, memory, answer } = setup();
    await kept.keep(signed(NEW));
    kept.touch(handlers);
    state.known.add(NEW);
    answer.status = 200;
    await kept.retry();
    expect(calls.kept).toHaveLength(1);
    expect(await memory.list()).toEqual([]);

    await kept.keep(signed(NEW, 'kept-2'));
    answer.status = 503;
    await kept.retry();
    expect(calls.kept).toHaveLength(3);
    expect(calls.kept[2]!.request.id).toBe(calls.kept[1]!.request.id);
    expect(calls.kept[2]!.limits.until).toBe(T0 + HOUR + 60_000);
    expect(await memory.list()).toHaveLength(1);
  });

  it('does not keep a failed request again once the window ended while it ran', async () => {
    const { kept, state, calls, answer } = setup();
    await kept.keep(signed(NEW));
    kept.touch(handlers);
    state.known.add(NEW);
    answer.status = 500;
    answer.during = () => void (state.until = undefined);
    await kept.retry();
    expect(calls.kept).toHaveLength(1);
  });
});

describe('KeptDeliveries: passes', () => {
  it('runs one pass for one retry, and one pass more for any number of retries during it', async () => {
    const single = setup();
    await single.kept.retry();
    await settle();
    expect(single.calls.lists).toBe(0); // not handled yet: the pass stops before listing
    single.kept.touch(handlers);
    await settle();
    expect(single.calls.lists).toBe(1);

    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let running = 0;
    let most = 0;
    const { kept, calls } = setup({
      store: {
        list: async () => {
          calls.lists++;
          most = Math.max(most, ++running);
          await gate;
          running--;
          return [];
        },
      },
    });
    kept.touch(handlers); // the first handle() re-checks at once
    const second = kept.retry();
    const third = kept.retry();
    expect(third).toBe(second);
    open();
    await second;
    await settle();
    expect(calls.lists).toBe(2);
    expect(most).toBe(1);
  });

  it('reports a pass that fails, and settles', async () => {
    const { kept, reports } = setup({
      store: {
        list: () => {
          throw new Error('the list is gone');
        },
      },
    });
    kept.touch(handlers); // the first handle() re-checks at once
    await settle();
    expect(reports).toEqual(['kept requests could not be checked: Error: the list is gone']);
    await kept.retry();
    expect(reports).toHaveLength(2);
  });

  it('drops what is left when the window has ended, saying how many, and says nothing when none was', async () => {
    const { kept, state, reports } = setup();
    await kept.keep(signed(NEW, 'a'));
    await kept.keep(signed(NEW, 'b'));
    state.until = undefined;
    await kept.retry();
    expect(reports).toEqual(['the rotation window ended: 2 kept request(s) that no token verified were dropped']);
    await kept.retry();
    expect(reports).toHaveLength(1);
  });

  it('re-checks at once on the first handle() with a window armed, and only then', async () => {
    const { kept, calls } = setup();
    kept.touch(handlers);
    await settle();
    expect(calls.lists).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    kept.touch(handlers);
    await settle();
    expect(calls.lists).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('neither re-checks nor starts a timer on handle() without a window', async () => {
    const { kept, calls, state } = setup({ until: undefined });
    kept.touch(handlers);
    await vi.advanceTimersByTimeAsync(HOUR);
    await settle();
    expect(calls.lists + calls.clears + state.refreshes).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('KeptDeliveries: the re-check timer', () => {
  it('keeps one timer at a time', async () => {
    const { kept } = setup();
    await kept.keep(signed(NEW, 'a'));
    await kept.keep(signed(NEW, 'b'));
    kept.touch(handlers);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('reads the tokens again every tokenCacheMs while the window lasts', async () => {
    const { kept, state, calls } = setup({ cacheMs: 1000 });
    await kept.keep(signed(NEW));
    await vi.advanceTimersByTimeAsync(999);
    expect(state.refreshes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(state.refreshes).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(state.refreshes).toBe(2);
    expect(calls.clears).toBe(0);
  });

  it('re-checks 1 ms after the window ends when that is sooner, drops what is left, and stops', async () => {
    const { kept, state, reports } = setup({ until: T0 + 100, cacheMs: 1000 });
    await kept.keep(signed(NEW));
    await vi.advanceTimersByTimeAsync(100);
    expect(state.refreshes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(state.refreshes).toBe(1);
    expect(reports).toEqual(['the rotation window ended: 1 kept request(s) that no token verified were dropped']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps one timer at a time where timers are numbers (no unref)', async () => {
    let timers = 0;
    vi.stubGlobal('setTimeout', () => ++timers);
    const { kept } = setup();
    await kept.keep(signed(NEW, 'a'));
    await kept.keep(signed(NEW, 'b'));
    expect(timers).toBe(1);
  });

  it('keeps requests where the host allows no timer, trying again on the next one', async () => {
    let tries = 0;
    vi.stubGlobal('setTimeout', () => {
      tries++;
      throw new Error('setTimeout is not allowed in the global scope');
    });
    const { kept, memory } = setup();
    await kept.keep(signed(NEW, 'a'));
    await kept.keep(signed(NEW, 'b'));
    expect(tries).toBe(2);
    expect(await memory.list()).toHaveLength(2);
  });
});

describe('KeptDeliveries.start: requests kept before this receiver started', () => {
  it('are processed at once with the handlers option, no delivery needed, and re-checked after', async () => {
    const { kept, state, memory, processed } = setup({ receiver: { handlers } });
    // Another instance kept it before this one started.
    const other = setup();
    await other.kept.keep(signed(NEW));
    const [summary] = await other.memory.list();
    const request = await other.memory.take(summary!.id);
    await memory.keep(request!, { maxCount: 10, maxBytes: 1 << 20, until: T0 + HOUR });
    state.known.add(NEW);
    await kept.start();
    expect(state.refreshes).toBe(1);
    expect(processed).toHaveLength(1);
    expect(processed[0]!.handlers).toBe(handlers);
    expect(await memory.list()).toEqual([]);
  });

  it('wait for handlers outside queue mode when none were given, and re-check every tokenCacheMs', async () => {
    const { kept, state, memory, processed } = setup({ cacheMs: 1000 });
    const other = setup();
    await other.kept.keep(signed(NEW));
    const [summary] = await other.memory.list();
    await memory.keep((await other.memory.take(summary!.id))!, { maxCount: 10, maxBytes: 1 << 20, until: T0 + HOUR });
    state.known.add(NEW);
    await kept.start();
    expect(processed).toEqual([]);
    kept.touch(handlers);
    await settle();
    expect(processed).toHaveLength(1);
  });

  it('read nothing when nothing is kept, and report a failed listing only while armed', async () => {
    const failing = { list: () => Promise.reject(new Error('no kept table')) };
    const unarmed = setup({ until: undefined, store: failing });
    await unarmed.kept.start();
    expect(unarmed.reports).toEqual([]);
    const armed = setup({ store: failing });
    await armed.kept.start();
    expect(armed.reports).toEqual(['kept requests could not be listed at start: Error: no kept table']);
    const empty = setup();
    await empty.kept.start();
    expect(empty.state.refreshes).toBe(0);
    expect(empty.calls.lists).toBe(1);
  });
});

describe('KeptDeliveries.start when the token source cannot be read', () => {
  it('drops nothing kept: the window is unknown, not ended', async () => {
    const { kept, memory, calls } = setup({ until: undefined, receiver: { handlers } });
    const other = setup();
    await other.kept.keep(signed(NEW));
    const [summary] = await other.memory.list();
    await memory.keep((await other.memory.take(summary!.id))!, { maxCount: 10, maxBytes: 1 << 20, until: T0 + HOUR });
    await kept.start();
    expect(calls.clears).toBe(0);
    expect(await memory.list()).toHaveLength(1);
  });
});
