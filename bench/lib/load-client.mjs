// A closed-loop HTTP/1.1 load generator on raw keep-alive sockets: `concurrency` connections,
// each sending its next request as soon as the previous answer ended, every request a
// different delivery. autocannon records latency in whole milliseconds, too coarse for a p99
// under 2 ms, and sends one fixed body unless rebuilt per request; node:http's client costs
// several times the server's work per request, so on one core it would be the bottleneck.

import { connect } from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');

/** The request's bytes: the head with the delivery's headers, then its body. */
export function requestBytes(path, delivery) {
  const { host, 'content-length': length, ...headers } = delivery.headers;
  let head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${delivery.body.length}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), delivery.body]);
}

/**
 * The first whole answer in `bytes`: { status, text, end } (end: the bytes it took), undefined
 * while incomplete. Node answers with Content-Length or, once headers were sent before the
 * body, chunked.
 */
function parseAnswer(bytes) {
  const headEnd = bytes.indexOf(HEADER_END);
  if (headEnd < 0) return undefined;
  const head = bytes.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  let at = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) {
    const end = at + Number(length);
    return end > bytes.length ? undefined : { status, text: bytes.toString('utf8', at, end), end };
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return new Error(`an answer without a length: ${head}`);
  const parts = [];
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.toString('latin1', at, lineEnd), 16);
    const end = lineEnd + 2 + size + 2;
    if (end > bytes.length) return undefined;
    if (size === 0) return { status, text: Buffer.concat(parts).toString('utf8'), end };
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = end;
  }
}

/** One kept-alive connection that sends a request and resolves with the answer's status and body text. */
function connection(port) {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let pending;
  let buffered = Buffer.alloc(0);
  const fail = (error) => {
    const waiting = pending;
    pending = undefined;
    waiting?.reject(error);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the server closed the connection')));
  socket.on('data', (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    const answer = parseAnswer(buffered);
    if (answer === undefined) return;
    if (answer instanceof Error) return fail(answer);
    buffered = buffered.subarray(answer.end);
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(answer);
  });
  const ready = new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    ready,
    send(bytes) {
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        socket.write(bytes);
      });
    },
    close: () => socket.destroy(),
  };
}

/**
 * Sends every request of `requests` (Buffers from `requestBytes`) over `concurrency`
 * connections, closed loop, and answers deliveries per second and latencies in ms.
 * Rejects on the first answer `accepts` refuses, so a bench never times refusals.
 * @param {{ port: number, concurrency: number, requests: Buffer[], accepts: (status: number, text: string) => boolean }} options
 */
export async function closedLoop({ port, concurrency, requests, accepts }) {
  const connections = Array.from({ length: concurrency }, () => connection(port));
  try {
    await Promise.all(connections.map((c) => c.ready));
    const latencies = new Float64Array(requests.length);
    let next = 0;
    const loop = async (c) => {
      while (next < requests.length) {
        const index = next++;
        const sent = process.hrtime.bigint();
        const { status, text } = await c.send(requests[index]);
        latencies[index] = Number(process.hrtime.bigint() - sent) / 1e6;
        if (!accepts(status, text)) throw new Error(`answered ${status} ${text}`);
      }
    };
    const start = process.hrtime.bigint();
    await Promise.all(connections.map(loop));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { perSecond: requests.length / seconds, latencies: Array.from(latencies) };
  } finally {
    for (const c of connections) c.close();
  }
}
