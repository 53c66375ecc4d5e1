import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  type DeliveryQueue,
  memoryDedupStore,
  type ReceiverOptions,
  withQueueMode,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_hook_and_log_token';
const sync = (deliveryId: string, timestamp?: number, articleId = 'article-hooks') =>
  signDelivery({
    token,
    deliveryId,
    payload: articleSyncPayload({ ...(timestamp ? { timestamp } : {}), article: { id: articleId } }),
    ...(timestamp ? { timestamp } : {}),
  });
const wrongToken = (deliveryId?: string) =>
  signDelivery({ token: 'not-the-token', payload: articleSyncPayload(), ...(deliveryId ? { deliveryId } : {}) });

/** A plain (console-like) logger that keeps its lines. */
function textLogger() {
  const lines: Array<{ level: 'warn' | 'error'; line: string }> = [];
  return {
    lines,
    texts: () => lines.map(({ line }) => line),
    logger: {
      warn: (line: string) => void lines.push({ level: 'warn', line }),
      error: (line: string) => void lines.push({ level: 'error', line }),
    },
  };
}

/** A structured (pino-like) logger: fields first, message second. */
function structuredLogger() {
  const records: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const write = (level: string) => (fields: Record<string, unknown>, message: string) =>
    void records.push({ level, fields, message });
  return { records, logger: { warn: write('warn'), error: write('error'), child: () => undefined } };
}

const throwing = () => {
  throw new Error('hook broke');
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('a hook that throws is logged under its own name, and the answer stands', () => {
  const hookLine = (name: string) =>
    `webhook-cms-receiver: the ${name} hook threw; the delivery was answered as if it had not.`;

  it('onError', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger, onError: throwing });
    const answer = await receiver.handle(sync('h-err'), { 'article.sync': throwing });
    expect(answer.status).toBe(500);
    expect(log.texts()[0]).toContain(hookLine('onError'));
  });

  it('onRejected', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger, onRejected: throwing });
    expect((await receiver.handle(wrongToken(), {})).status).toBe(401);
    expect(log.texts()[0]).toContain(hookLine('onRejected'));
  });

  it('onDuplicate, in both modes', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger, onDuplicate: throwing });
    await receiver.handle(sync('h-dup'), {});
    expect((await receiver.handle(sync('h-dup'), {})).status).toBe(200);
    const queue: DeliveryQueue = withQueueMode({ enqueue: async () => undefined });
    const queued = createReceiver({ token, queue, logger: log.logger, onDuplicate: throwing });
    await queued.handle(sync('h-dup-q'), {});
    expect(await queued.handle(sync('h-dup-q'), {})).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(log.texts().map((line) => line.split(' \n')[0]!.split(' Error:')[0])).toEqual([
      hookLine('onDuplicate'),
      hookLine('onDuplicate'),
    ]);
  });

  it('onStale', async () => {
    const log = textLogger();
    const now = Date.now();
    const receiver = createReceiver({ token, logger: log.logger, ordering: true, onStale: throwing });
    const seconds = Math.floor(now / 1000);
    await receiver.handle(sync('h-new', seconds, 'stale-hook'), {});
    expect((await receiver.handle(sync('h-old', seconds - 10, 'stale-hook'), {})).body).toMatchObject({ stale: true });
    expect(log.texts()[0]).toContain(hookLine('onStale'));
  });

  it('inspect', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger, inspect: throwing });
    expect((await receiver.handle(sync('h-inspect'), {})).status).toBe(200);
    expect(log.texts()[0]).toContain(hookLine('inspect'));
  });

  it('logs nothing for a hook that is not set', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger, onError: () => undefined });
    await receiver.handle(sync('h-none'), {});
    await receiver.handle(sync('h-none'), {});
    expect(log.lines).toEqual([]);
  });
});

describe('log lines in detail', () => {
  it('says nothing at all with logger: false', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const receiver = createReceiver({ token, logger: false });
    await receiver.handle(sync('quiet'), { 'article.sync': throwing });
    await receiver.handle(wrongToken(), {});
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it('prints an Error’s stack, a thrown non-Error described, and no stack for a WebhookError', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger });
    await receiver.handle(sync('stack'), { 'article.sync': throwing });
    await receiver.handle(sync('string'), {
      'article.sync': () => {
        throw 'plain text thrown';
      },
    });
    const broken = { ...memoryDedupStore(), claim: () => Promise.reject(new Error('store down')) };
    await createReceiver({ token, logger: log.logger, dedup: broken }).handle(sync('webhook-error'), {});
    const [stack, text, webhookError] = log.texts();
    expect(stack).toMatch(
      /^webhook-cms-receiver: article\.sync delivery stack: Error: hook broke .*\n\s*Error: hook broke\n\s+at /s,
    );
    expect(text).toMatch(/ 'plain text thrown'$|plain text thrown$/);
    expect(text).not.toContain('\n');
    expect(webhookError).toBe(
      'webhook-cms-receiver: article.sync delivery webhook-error: dedup_unavailable: the dedup store failed to claim: ' +
        'Error: store down (pass onError to createReceiver to handle this)',
    );
  });

  it('gives a structured logger the code and reason of a WebhookError', async () => {
    const log = structuredLogger();
    const broken = { ...memoryDedupStore(), claim: () => Promise.reject(new Error('store down')) };
    await createReceiver({ token, logger: log.logger as never, dedup: broken }).handle(sync('fields'), {});
    expect(log.records[0]!.fields).toMatchObject({
      event: 'article.sync',
      deliveryId: 'fields',
      code: 'dedup_unavailable',
      reason: 'the dedup store failed to claim: Error: store down',
    });
  });

  it('names the delivery id of a refusal when it has one, and leaves the field out when not', async () => {
    const log = structuredLogger();
    const receiver = createReceiver({ token, logger: log.logger as never });
    await receiver.handle(wrongToken('refused-id'), {});
    const { headers, body } = wrongToken();
    const { 'X-Service-Delivery-Id': _id, ...withoutId } = headers as Record<string, string>;
    vi.useFakeTimers({ now: Date.now() + 120_000, toFake: ['Date'] });
    await receiver.handle({ headers: withoutId, body }, {});
    expect(log.records[0]!.message).toMatch(/ \(delivery refused-id\)$/);
    expect(log.records[0]!.fields.deliveryId).toBe('refused-id');
    expect(log.records[0]!.fields).not.toHaveProperty('omitted');
    expect(log.records[1]!.fields).not.toHaveProperty('deliveryId');
    expect(log.records[1]!.message).toBe(`refused a delivery: 401 invalid_token: ${log.records[1]!.fields.reason}`);
  });

  it('counts the refusals left out in the minute, exactly a minute later, and only then', async () => {
    const log = textLogger();
    const receiver = createReceiver({ token, logger: log.logger });
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ['Date'] });
    await receiver.handle(wrongToken(), {});
    await receiver.handle(wrongToken(), {});
    await receiver.handle(wrongToken(), {});
    vi.setSystemTime(start + 59_999);
    await receiver.handle(wrongToken(), {});
    expect(log.lines).toHaveLength(1);
    expect(log.texts()[0]).not.toContain('more with this code');
    // A refusal has no error object: nothing is described after the reason.
    expect(log.texts()[0]).toMatch(
      /^webhook-cms-receiver: refused a delivery: 401 invalid_token: [^\n]*configured tokens[^\n]*$/,
    );
    expect(log.texts()[0]).not.toMatch(/undefined$/);
    vi.setSystemTime(start + 60_000);
    await receiver.handle(wrongToken(), {});
    expect(log.lines).toHaveLength(2);
    expect(log.texts()[1]).toContain('(3 more with this code in the last minute not logged)');
  });
});

describe('options refused at start-up, with the fix in the message', () => {
  const create = (options: unknown) => () => createReceiver(options as ReceiverOptions);

  it('needs an options object', () => {
    for (const options of [undefined, null, 'token']) {
      expect(create(options)).toThrow(
        'createReceiver needs an options object: createReceiver({ token: process.env.WEBHOOK_TOKEN })',
      );
    }
  });

  it('needs every token to be a non-empty string, and says where to find it', () => {
    const message =
      'createReceiver: token must be a non-empty string (or a non-empty array of them). Is WEBHOOK_TOKEN set? ' +
      'The token is shown once in Profile Settings → CMS Integration.';
    for (const token of [undefined, '', [], [123], ['ok', ''], ['ok', null]]) {
      expect(create({ token })).toThrow(message);
    }
  });

  it('needs an instrumentation with startDelivery', () => {
    for (const instrumentation of [null, {}, 'otel']) {
      expect(create({ token, instrumentation })).toThrow(
        "createReceiver: instrumentation must be an object with a startDelivery method, such as openTelemetry() from 'webhook-cms-receiver/opentelemetry'.",
      );
    }
  });

  it('needs a store that keeps order for ordering: true', () => {
    const { ordering: _ordering, ...unordered } = memoryDedupStore();
    expect(create({ token, ordering: true, dedup: unordered })).toThrow(
      'createReceiver: ordering: true needs a dedup store that supports ordering (memoryDedupStore, redisDedupStore, ' +
        'postgresDedupStore, durableObjectDedupStore); this store does not declare `ordering: true`.',
    );
  });
});
