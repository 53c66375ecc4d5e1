import { connect as h2connect } from 'node:http2';
import { connect } from 'node:net';
import type { Answer, Outgoing } from '../helpers/http-client.js';

/**
 * Sends one request over cleartext HTTP/2 (h2c) on its own session and reads the whole answer.
 *
 * @example
 * ```ts
 * const answer = await h2send('http://127.0.0.1:41234', '/webhook', signDelivery({ token, payload: testPayload() }));
 * ```
 */
export async function h2send(origin: string, path: string, outgoing: Outgoing): Promise<Answer> {
  const session = h2connect(origin);
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const headers = Object.fromEntries(Object.entries(outgoing.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      const stream = session.request({ ':method': outgoing.method ?? 'POST', ':path': path, ...headers });
      const chunks: Buffer[] = [];
      let status = 0;
      let contentType: string | undefined;
      let allow: string | undefined;
      stream.on('response', (head) => {
        status = Number(head[':status']);
        contentType = head['content-type'];
        allow = head.allow;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, contentType, allow, body: contentType?.includes('json') ? JSON.parse(text) : text });
      });
      stream.on('error', reject);
      // A server may answer before reading the body: an early refusal ends the stream, not the test.
      stream.end(outgoing.body === undefined ? undefined : Buffer.from(outgoing.body));
    });
  } finally {
    session.close();
  }
}

/**
 * Sends one h2c request whose header list is written by hand, so a header may appear twice
 * (Node's own client refuses a second `authorization`), and returns everything the server sent
 * as text: the answer's JSON is in a DATA frame, readable as is.
 *
 * @example
 * ```ts
 * const text = await h2rawExchange(url, [['authorization', 'Bearer a'], ['authorization', 'Bearer b']], '{}');
 * ```
 */
export function h2rawExchange(
  origin: string,
  path: string,
  headers: [string, string][],
  body: string,
): Promise<string> {
  const { hostname, port } = new URL(origin);
  const block = Buffer.concat([
    // Indexed from HPACK's static table: :method POST, :path /, :scheme http. Then a literal :path.
    Buffer.from([0x83, 0x86]),
    literal(':path', path),
    literal(':authority', `${hostname}:${port}`),
    ...headers.map(([name, value]) => literal(name, value)),
    literal('content-length', String(Buffer.byteLength(body))),
  ]);
  const END_STREAM = 0x1;
  const END_HEADERS = 0x4;
  const frames = Buffer.concat([
    Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
    frame(0x4, 0, 0, Buffer.alloc(0)),
    frame(0x1, END_HEADERS, 1, block),
    frame(0x0, END_STREAM, 1, Buffer.from(body)),
  ]);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(frames));
    let text = '';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(finish, 2000);
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      if (/\{"[\s\S]*\}/.test(text)) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
  });
}

/** An HPACK "literal header field without indexing, new name", both strings raw (no Huffman). */
function literal(name: string, value: string): Buffer {
  if (name.length > 126 || value.length > 126) throw new Error('h2rawExchange: keep header names and values short');
  return Buffer.concat([
    Buffer.from([0x00, name.length]),
    Buffer.from(name),
    Buffer.from([value.length]),
    Buffer.from(value),
  ]);
}

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}
