import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';

/** What a test compares: everything the service could observe about an answer. */
export interface Answer {
  status: number;
  contentType: string | undefined;
  allow: string | undefined;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
}

/** A request to send: method (default POST), headers and an optional body. */
export interface Outgoing {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Sends one request on its own connection (a fresh agent per call, so concurrent calls really
 * are concurrent) and reads the whole answer.
 *
 * @example
 * ```ts
 * const answer = await send(`${url}/webhook`, signDelivery({ token, payload: testPayload() }));
 * ```
 */
export function send(url: string, outgoing: Outgoing): Promise<Answer> {
  return exchange(url, outgoing, (req) => req.end(outgoing.body));
}

/** What {@link sendUnbounded} observed. */
export interface UnboundedAnswer extends Answer {
  /** Bytes written before the answer arrived. */
  bytesSent: number;
  /** True when the client ran out of body to send before any answer: the server read it all. */
  exhausted: boolean;
}

/**
 * Streams a chunked body with no Content-Length, `chunk` after `chunk`, until the server
 * answers or `capBytes` have gone out. A server that stops reading at its limit answers long
 * before the cap; one that reads everything only answers once the body ends.
 *
 * @example
 * ```ts
 * const answer = await sendUnbounded(`${url}/webhook`, headers, 64 * 1024 * 1024);
 * expect(answer.exhausted).toBe(false);
 * ```
 */
export function sendUnbounded(
  url: string,
  headers: Record<string, string>,
  capBytes: number,
): Promise<UnboundedAnswer> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let bytesSent = 0;
  let answered = false;
  let exhausted = false;
  const write = (req: ClientRequest) => {
    while (!answered && bytesSent < capBytes) {
      bytesSent += chunk.byteLength;
      if (!req.write(chunk)) return void req.once('drain', () => write(req));
    }
    if (!answered) {
      exhausted = true;
      req.end();
    }
  };
  const { 'Content-Length': _dropped, ...rest } = headers;
  return exchange(url, { headers: { ...rest, 'Transfer-Encoding': 'chunked' } }, write, () => {
    answered = true;
  }).then((answer) => ({ ...answer, bytesSent, exhausted }));
}

/**
 * Sends only the headers, declaring `Content-Length: declaredBytes`, and never the body: the
 * answer can only come from a server that decides on headers alone.
 *
 * @example
 * ```ts
 * const answer = await sendHeadersOnly(`${url}/webhook`, { Authorization: 'Bearer nope' }, 2 ** 30);
 * ```
 */
export function sendHeadersOnly(url: string, headers: Record<string, string>, declaredBytes: number): Promise<Answer> {
  return exchange(url, { headers: { ...headers, 'Content-Length': String(declaredBytes) } }, (req) =>
    req.flushHeaders(),
  );
}

function exchange(
  url: string,
  outgoing: Outgoing,
  start: (req: ClientRequest) => void,
  onAnswer?: () => void,
): Promise<Answer> {
  // Keep-alive, as the service's client would: with `Connection: close` Node's server closes the
  // socket right after an early answer (413, 401) and the answer can be lost to the reset that
  // our still-arriving body causes.
  const agent = new Agent({ keepAlive: true });
  return new Promise<Answer>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: outgoing.method ?? 'POST', headers: outgoing.headers, agent }, (res) => {
      answered = true;
      onAnswer?.();
      readAnswer(res).then((answer) => {
        // The rest of an unread body is of no interest once the answer is in.
        req.destroy();
        resolve(answer);
      }, reject);
    });
    // A server may close the connection after answering while we still write: that is fine.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    start(req);
  }).finally(() => agent.destroy());
}

async function readAnswer(res: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const contentType = res.headers['content-type'];
  let body: unknown = text;
  if (contentType?.includes('json')) body = JSON.parse(text);
  return { status: res.statusCode ?? 0, contentType, allow: res.headers.allow, body };
}
