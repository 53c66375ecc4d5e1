import { describe, expect, it, vi } from 'vitest';
import { createReceiver, isWebhookError, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// What onError and the log say when a delivery fails: each names what to change (contract:
// errors name the fix), which the answers to the service, all 'Handler failed', cannot show.

const token = 'whk_failure_reasons_token';

/** A logger that keeps its lines. */
function lines() {
  const seen: { level: string; message: string }[] = [];
  const logger = {
    warn: (message: string) => void seen.push({ level: 'warn', message }),
    error: (message: string) => void seen.push({ level: 'error', message }),
  };
  return { seen, logger };
}

describe('failure reasons', () => {
  it('a handler past handlerTimeoutMs: onError is told which handler, the limit, and what to do about it', async () => {
    const onError = vi.fn();
    const receiver = createReceiver({ token, handlerTimeoutMs: 20, onError });
    const handlers: WebhookHandlers = { 'article.sync': () => new Promise(() => {}) };
    const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), handlers);
    expect(answer).toEqual({ status: 500, body: { error: 'Handler failed' } });
    const [error] = onError.mock.calls[0]!;
    expect(isWebhookError(error) && error.code).toBe('handler_timeout');
    expect((error as { reason: string }).reason).toBe(
      'the article.sync handler did not settle within handlerTimeoutMs (20 ms); its signal was aborted and the ' +
        'delivery released for a retry. Pass context.signal to the work it awaits, or use queue mode for long work.',
    );
  });

  it('a failure of a delivery without an id is logged as such, naming the event and the fix', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({ token, logger });
    const handlers: WebhookHandlers = {
      test: () => {
        throw new Error('test handler broke');
      },
    };
    const delivery = signDelivery({ token, payload: testPayload(), deliveryId: null });
    expect((await receiver.handle(delivery, handlers)).status).toBe(500);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.level).toBe('error');
    expect(seen[0]!.message).toMatch(
      /^webhook-cms-receiver: test delivery \(no delivery id\): Error: test handler broke \(pass onError to createReceiver to handle this\)/,
    );
  });

  it('a failure in tenant mode names the tenant, in the line and in its fields', async () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      child: () => logger,
      warn: () => {},
      error: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }),
    };
    const receiver = createReceiver({ tenants: () => ({ id: 'site-7', token }), logger });
    const handlers: WebhookHandlers = {
      'article.sync': () => {
        throw new Error('sync broke');
      },
    };
    const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-tenant' });
    expect((await receiver.handle(delivery, handlers)).status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toBe(
      'article.sync delivery d-tenant of tenant site-7: Error: sync broke (pass onError to createReceiver to handle this)',
    );
    expect(lines[0]!.fields).toMatchObject({ event: 'article.sync', deliveryId: 'd-tenant', tenant: 'site-7' });
  });

  it('an Error without a stack is described in the line, never written as undefined', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({ token, logger });
    const stackless = new Error('no stack here');
    stackless.stack = undefined;
    const handlers: WebhookHandlers = {
      'article.sync': () => {
        throw stackless;
      },
    };
    const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-stackless' });
    expect((await receiver.handle(delivery, handlers)).status).toBe(500);
    expect(seen.map((line) => line.message)).toEqual([
      'webhook-cms-receiver: article.sync delivery d-stackless: Error: no stack here (pass onError to createReceiver ' +
        'to handle this) Error: no stack here',
    ]);
  });

  it('a token source that fails is logged as a fault of the receiver, with the fix, when there is no onError', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({
      token: () => {
        throw new Error('vault down');
      },
      logger,
    });
    const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {});
    expect(answer.status).toBe(503);
    // The refusal of the delivery has a line of its own; this is the receiver's.
    const faults = seen.filter((line) => line.message.startsWith('webhook-cms-receiver: token_unavailable:'));
    expect(faults).toHaveLength(1);
    expect(faults[0]!.level).toBe('error');
    expect(faults[0]!.message).toMatch(
      /^webhook-cms-receiver: token_unavailable: the token source failed \(.*\): Error: vault down \(pass onError to createReceiver to handle this\)$/,
    );
  });

  it('an onError that throws on a receiver fault is logged under its own name', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({
      token: () => {
        throw new Error('vault down');
      },
      onError: () => {
        throw new Error('onError broke');
      },
      logger,
    });
    expect((await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {})).status).toBe(503);
    expect(seen.map((line) => line.message.split('\n')[0])).toContainEqual(
      expect.stringMatching(
        /^webhook-cms-receiver: the onError hook threw; the delivery was answered as if it had not\./,
      ),
    );
  });

  it('a host fault other than a parsed body is logged as a failed check, not as a misconfigured server', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({
      token,
      logger,
      crypto: {
        name: 'broken',
        hmacSha256: () => ({
          verify: () => {
            throw new Error('provider broke');
          },
        }),
      },
    });
    const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-broken' });
    expect((await receiver.handle(delivery, {})).status).toBe(500);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.level).toBe('error');
    expect(seen[0]!.message).toMatch(
      /^webhook-cms-receiver: could not check a delivery: 500 internal_error: verification failed unexpectedly: Error: provider broke \(delivery d-broken\)/,
    );
  });

  it('a receiver fault gives a structured logger its code, reason and error as fields', async () => {
    const errors: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      child: () => logger,
      warn: () => {},
      error: (fields: Record<string, unknown>, message: string) => void errors.push({ fields, message }),
    };
    const failing = new Error('vault down');
    const receiver = createReceiver({
      token: () => {
        throw failing;
      },
      logger,
    });
    expect((await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {})).status).toBe(503);
    const fault = errors.find((line) => line.message.startsWith('token_unavailable:'));
    expect(fault).toBeDefined();
    const { fields } = fault!;
    expect(fields).toMatchObject({ code: 'token_unavailable', reason: expect.stringContaining('vault down') });
    expect(isWebhookError(fields.err) && (fields.err as Error).cause).toBe(failing);
  });
});
