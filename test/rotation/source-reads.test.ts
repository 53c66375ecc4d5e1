import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, isWebhookError, type ReceiverOptions, type TokenSourceResult } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

// Issue 45, defects 1 and 10: a token source that hangs or is slow must not hold deliveries.
// Over HTTP through the node adapter, with a source the test holds open (no clock is timed).

const KNOWN = 'known-token-0123456789abcdef';
const NEXT = 'next-token-fedcba9876543210';

/** A token source whose first read answers `first`; later reads wait until the test opens the gate. */
function gatedSource(first: TokenSourceResult) {
  const state = { reads: 0, answer: first as TokenSourceResult, open: undefined as (() => void) | undefined };
  const gate = new Promise<void>((resolve) => (state.open = resolve));
  const read = async (): Promise<TokenSourceResult> => {
    state.reads++;
    if (state.reads > 1) await gate;
    return state.answer;
  };
  return { state, read };
}

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: ReceiverOptions) {
  const errors: unknown[] = [];
  const receiver = createReceiver({ logger: false, onError: (error) => void errors.push(error), ...options });
  const server = await listen(createServer(webhookHandler(receiver, { test: () => {} })));
  servers.push(server);
  // Gives up after 4 s: before the fix a hung read held the request forever.
  const post = async (token: string) => {
    const { headers, body } = signDelivery({ token, payload: testPayload() });
    const response = await fetch(`${server.url}/`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(4000),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { errors, post };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a token source that hangs or is slow (issue 45, defects 1 and 10)', () => {
  it('a hung read times out: known tokens keep working on the last good list, and onError hears of it once', async () => {
    const { state, read } = gatedSource([KNOWN]);
    const { errors, post } = await serve({ token: read, tokenCacheMs: 50, tokenReadTimeoutMs: 300 });
    expect((await post(KNOWN)).status).toBe(200);
    await pause(60);
    // The list is stale and every read from now on hangs (the gate is never opened).
    const known = await Promise.all(Array.from({ length: 100 }, () => post(KNOWN)));
    expect(known.map((answer) => answer.status)).toEqual(known.map(() => 200));
    // An unknown token waits at most for the timed-out read, then is refused.
    const unknown = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`unknown-token-${i}`)));
    for (const answer of unknown) expect(answer.status).toBe(401);
    await pause(400);
    expect((await post('unknown-token-after')).status).toBe(401);
    expect((await post(KNOWN)).status).toBe(200);
    const reported = errors.filter((error) => isWebhookError(error) && error.code === 'token_unavailable');
    expect(reported).toHaveLength(1);
    expect((reported[0] as { reason: string }).reason).toMatch(/last good token list is kept/);
    expect((reported[0] as { reason: string }).reason).toMatch(/did not answer within 300 ms/);
    // A hung source is not called on every request: once a second at most, plus the first read.
    expect(state.reads).toBeLessThanOrEqual(4);
  });

  it('a first read that hangs answers 503 Token unavailable after the timeout, never holds the request', async () => {
    const { read, state } = gatedSource([KNOWN]);
    state.reads = 1; // every read waits at the gate, the first included
    const { errors, post } = await serve({ token: read, tokenReadTimeoutMs: 200 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(KNOWN)));
    for (const answer of answers) expect(answer).toEqual({ status: 503, body: { error: 'Token unavailable' } });
    expect(errors).toHaveLength(1);
    expect((errors[0] as { reason: string }).reason).toMatch(/deliveries are answered 503 until a read works/);
  });

  it('a slow read never holds a known token once a good list exists: the stale list answers, the read refreshes it', async () => {
    const { state, read } = gatedSource([KNOWN]);
    const { errors, post } = await serve({ token: read, tokenCacheMs: 50, tokenReadTimeoutMs: 60_000 });
    expect((await post(KNOWN)).status).toBe(200);
    await pause(60);
    // The re-read is under way and stays so until the gate opens: known tokens are answered meanwhile.
    const during = await Promise.all(Array.from({ length: 100 }, () => post(KNOWN)));
    for (const answer of during) expect(answer.status).toBe(200);
    expect(state.reads).toBe(2);
    // The read ends with the token rotated: the refreshed list answers from then on.
    state.answer = [NEXT];
    state.open!();
    await pause(20);
    expect((await post(NEXT)).status).toBe(200);
    expect((await post(KNOWN)).status).toBe(401);
    expect(errors).toEqual([]);
  });
});
