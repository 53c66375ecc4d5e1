import { inspect } from 'node:util';
import { vi } from 'vitest';
import {
  createReceiver,
  memoryDedupStore,
  type CryptoProvider,
  type DedupStore,
  type DeliveryInput,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { articleSyncPayload, signature, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

/** Everything the library said, anywhere a token could leak: answers, errors, hook arguments, the console. */
export interface Leaks {
  texts: string[];
  codes: Set<string>;
  /** The computed signatures of the tampered deliveries: as secret as the token. */
  computed: string[];
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/** Every way to turn a value into text that a logger might use. */
function render(value: unknown): string[] {
  const out = [inspect(value, { depth: 10, showHidden: true, getters: true })];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: inspect already covered it
  }
  try {
    out.push(String(value));
  } catch {
    // no string form
  }
  if (value instanceof Error)
    out.push(value.message, value.stack ?? '', String((value as { reason?: unknown }).reason));
  return out;
}

/**
 * Sends every kind of delivery the receiver refuses or fails (and some it accepts) through
 * `verify`, `handle` and the Fetch adapter, capturing all output. `tokens[signedWith]` signs.
 */
export async function runLeakScenarios(tokens: string[], signedWith: number, crypto: CryptoProvider): Promise<Leaks> {
  const leaks: Leaks = { texts: [], codes: new Set(), computed: [] };
  const capture = (...values: unknown[]) => {
    for (const value of values) leaks.texts.push(...render(value));
  };
  const spies = CONSOLE_METHODS.map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => capture(...args)),
  );
  try {
    await scenarios(tokens, signedWith, crypto, leaks, capture);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return leaks;
}

async function scenarios(
  tokens: string[],
  signedWith: number,
  crypto: CryptoProvider,
  leaks: Leaks,
  capture: (...values: unknown[]) => void,
) {
  const token = tokens[signedWith]!;
  const now = Math.floor(Date.now() / 1000);
  let failingStore = false;
  const memory = memoryDedupStore();
  const store: DedupStore = {
    claim: (claim) => (failingStore ? Promise.reject(new Error('store down')) : memory.claim(claim)),
    complete: (...args) => memory.complete(...args),
    release: (...args) => memory.release(...args),
  };
  const receiver = createReceiver({
    token: tokens,
    crypto,
    dedup: store,
    maxBodyBytes: 64 * 1024,
    onRejected: (error, info) => {
      leaks.codes.add(error.code);
      capture(error, info);
      throw new Error('a hook that throws'); // its report goes to console.error, which is captured too
    },
    onDuplicate: (info) => capture(info),
    onError: (error, event) => capture(error, event),
  });
  let handlerThrows = false;
  const handlers: WebhookHandlers = {
    'article.sync': () => {
      if (handlerThrows) throw new Error('the CMS is down');
      return { publishedUrl: 'https://blog.example.com/p' };
    },
  };
  const through = async (input: DeliveryInput) => {
    await receiver.verify(input).then(capture, capture);
    capture(await receiver.handle(input, handlers));
  };
  const sign = (
    payload: object | string,
    options: { timestamp?: number | string; deliveryId?: string | null; with?: string } = {},
  ) =>
    signDelivery({
      token: options.with ?? token,
      payload,
      timestamp: options.timestamp ?? now,
      deliveryId: options.deliveryId,
    });
  const withHeader = (
    delivery: { headers: Record<string, string>; body: string | Uint8Array },
    name: string,
    value: string | undefined,
  ) => {
    const headers = { ...delivery.headers };
    if (value === undefined) delete headers[name];
    else headers[name] = value;
    return { headers, body: delivery.body };
  };

  // Each delivery distinct: the same body and timestamp would be caught as a replay of the first.
  let serial = 0;
  const article = () => articleSyncPayload({ article: { slug: `post-${++serial}` } });
  const valid = sign(article());
  await through(valid); // accepted
  await through(valid); // duplicate by id
  await through(withHeader(valid, 'X-Service-Delivery-Id', crypto.name)); // replay under a new id
  handlerThrows = true;
  await through(sign(article()));
  handlerThrows = false;
  failingStore = true;
  await through(sign(article()));
  failingStore = false;

  const fresh = sign(article());
  leaks.computed.push(signature(token, String(now), fresh.body), signature(token, String(now), `${fresh.body} `));
  await through(withHeader(fresh, 'Authorization', `Bearer ${token}x`));
  await through(withHeader(fresh, 'Authorization', `Bearer ${token.slice(0, -1)}`));
  await through(withHeader(fresh, 'Authorization', `Basic ${token}`));
  await through(withHeader(fresh, 'Authorization', token));
  await through(withHeader(fresh, 'Authorization', undefined));
  await through({ headers: { ...fresh.headers, authorization: `Bearer ${token}` }, body: fresh.body }); // duplicated header
  await through(withHeader(fresh, 'X-Service-Timestamp', 'soon'));
  await through(withHeader(fresh, 'X-Service-Timestamp', undefined));
  await through(sign(article(), { timestamp: now - 3600 }));
  await through(sign(article(), { timestamp: now + 3600 }));
  await through(withHeader(fresh, 'X-Service-Signature', `sha256=${'0'.repeat(64)}`));
  await through(withHeader(fresh, 'X-Service-Signature', 'sha256=short'));
  await through(withHeader(fresh, 'X-Service-Signature', undefined));
  await through({ headers: fresh.headers, body: `${fresh.body} ` });
  for (const other of tokens.filter((t) => t !== token))
    await through(withHeader(sign(article(), { with: other }), 'Authorization', `Bearer ${token}`));
  await through(sign('not json'));
  await through(sign({ event: 'article.sync', timestamp: now }));
  await through(sign(article(), { deliveryId: null }));
  await through(sign(testPayload(), { deliveryId: null }));
  await through(sign('x'.repeat(64 * 1024 + 1)));
  await through({ headers: fresh.headers, body: JSON.parse(fresh.body as string) as never });

  // The HTTP layer: method, early size and token checks, an already-parsed body, through real Fetch objects.
  const fetchHandler = webhookHandler(receiver, handlers);
  const send = async (init: RequestInit & { headers: Record<string, string> }, consume = false) => {
    const request = new Request('http://127.0.0.1/webhook', init);
    if (consume) await request.text();
    const response = await fetchHandler(request);
    capture(response.status, await response.text(), [...response.headers]);
  };
  const post = sign(article());
  await send({ method: 'POST', headers: post.headers, body: post.body as string });
  await send({ method: 'GET', headers: post.headers });
  await send({
    method: 'POST',
    headers: { ...post.headers, 'Content-Length': String(10 * 1024 * 1024) },
    body: post.body as string,
  });
  await send({
    method: 'POST',
    headers: { ...post.headers, Authorization: `Bearer ${token}!` },
    body: post.body as string,
  });
  await send({ method: 'POST', headers: post.headers, body: post.body as string }, true);
}
