import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver, type ReceiverSettings } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_logging_test_token_secret';
const wrongToken = () => signDelivery({ token: 'not-the-token', payload: articleSyncPayload(), deliveryId: 'd-wrong' });
const tampered = () => {
  const { headers, body } = signDelivery({ token, payload: articleSyncPayload() });
  return { headers, body: String(body).replace('"published"', '"archived"') };
};

function consoleSpies() {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const lines = (spy: typeof warn) => spy.mock.calls.map((call) => call.map(String).join(' '));
  return { warn, error, warnLines: () => lines(warn), errorLines: () => lines(error) };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('refusals are logged by default (contract v3)', () => {
  it('logs a wrong token at warn on console: one line with status, code, reason and delivery id, never the token', async () => {
    const spies = consoleSpies();
    const receiver = createReceiver({ token });
    expect((await receiver.handle(wrongToken(), {})).status).toBe(401);
    expect(spies.warnLines()).toHaveLength(1);
    const [line] = spies.warnLines();
    expect(line).toMatch(
      /^webhook-cms-receiver: refused a delivery: 401 invalid_token: .*configured tokens.*delivery d-wrong/,
    );
    expect(line).not.toContain(token);
    expect(line).not.toContain('not-the-token');
    expect(spies.error).not.toHaveBeenCalled();
  });

  it('logs at most one line per code per minute, then counts the ones left out on the next line', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-23T12:00:00Z'));
    const spies = consoleSpies();
    const receiver = createReceiver({ token });
    for (let i = 0; i < 5; i++) await receiver.handle(wrongToken(), {});
    await receiver.handle(tampered(), {});
    await receiver.handle(tampered(), {});
    expect(spies.warnLines().map((line) => /(invalid_\w+)/.exec(line)?.[1])).toEqual([
      'invalid_token',
      'invalid_signature',
    ]);
    vi.setSystemTime(new Date('2026-11-23T12:01:01Z'));
    await receiver.handle(wrongToken(), {});
    expect(spies.warnLines()).toHaveLength(3);
    expect(spies.warnLines()[2]).toContain('(4 more with this code in the last minute not logged)');
  });

  it('gives a structured logger (pino) a fields object and a message, without the token or payload', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const receiver = createReceiver({ token, logger: pino(sink) });
    await receiver.handle(wrongToken(), {});
    await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-fails' }), {
      'article.sync': () => {
        throw new Error('disk full');
      },
    });
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      expect.objectContaining({ level: 40, status: 401, code: 'invalid_token', deliveryId: 'd-wrong' }),
      expect.objectContaining({ level: 50, event: 'article.sync', deliveryId: 'd-fails' }),
    ]);
    expect(records[0]?.msg).toMatch(/refused a delivery: 401 invalid_token/);
    expect(records[1]?.msg).toMatch(/disk full/);
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain('content_html');
  });

  it.each<[string, Partial<ReceiverSettings>]>([
    ['logger: false', { logger: false }],
    ['an onRejected hook', { onRejected: () => {} }],
  ])('logs no refusal with %s', async (_name, options) => {
    const spies = consoleSpies();
    const receiver = createReceiver({ token, ...options });
    await receiver.handle(wrongToken(), {});
    await receiver.handle(tampered(), {});
    expect(spies.warn).not.toHaveBeenCalled();
    expect(spies.error).not.toHaveBeenCalled();
  });

  it('still logs a host fault (500 Server misconfigured) at error with onRejected set: it names a fix in the host', async () => {
    const spies = consoleSpies();
    const onRejected = vi.fn();
    const receiver = createReceiver({ token, onRejected });
    const { headers } = signDelivery({ token, payload: articleSyncPayload() });
    expect((await receiver.handle({ headers, body: { parsed: true } as never }, {})).status).toBe(500);
    expect(onRejected).toHaveBeenCalledTimes(1);
    expect(spies.errorLines()).toEqual([
      expect.stringMatching(
        /^webhook-cms-receiver: could not check a delivery, this server is misconfigured: 500 body_already_parsed: .*raw bytes/,
      ),
    ]);
    // A host fault is not the sender's doing: it is never worded as a refusal.
    expect(spies.errorLines()[0]).not.toMatch(/refused/);
  });

  it('sends handler failures to the logger at error, and nothing with logger: false', async () => {
    const seen: unknown[][] = [];
    const logger = {
      warn: (...args: unknown[]) => seen.push(['warn', ...args]),
      error: (...args: unknown[]) => seen.push(['error', ...args]),
    };
    const failing = { 'article.sync': () => Promise.reject(new Error('upstream down')) };
    await createReceiver({ token, logger }).handle(signDelivery({ token, payload: articleSyncPayload() }), failing);
    expect(seen).toEqual([
      ['error', expect.stringMatching(/^webhook-cms-receiver: article\.sync delivery .*upstream down/)],
    ]);
    const spies = consoleSpies();
    await createReceiver({ token, logger: false }).handle(
      signDelivery({ token, payload: articleSyncPayload() }),
      failing,
    );
    expect(spies.error).not.toHaveBeenCalled();
  });
});
