import { connect, type Server, type Socket } from 'node:net';

/** What a raw HTTP/1.1 exchange showed. */
export interface RawExchange {
  /** The status line's code, or undefined when no answer came. */
  status: number | undefined;
  /** Everything the server sent. */
  text: string;
  /** Milliseconds from the answer's first byte to the server closing the connection; undefined if it never did. */
  closedAfterMs: number | undefined;
  /** Bytes the client managed to write before the connection went. */
  bytesSent: number;
}

/**
 * Sends a request head as written (so a header may appear twice) and then, if asked, an
 * endless chunked body until the server closes the connection or `giveUpMs` passes.
 *
 * @example
 * ```ts
 * const exchange = await rawExchange(url, ['Authorization: Bearer wrong'], { endlessBody: true });
 * ```
 */
export function rawExchange(
  url: string,
  headerLines: string[],
  options: { endlessBody?: boolean; body?: string; giveUpMs?: number } = {},
): Promise<RawExchange> {
  const { hostname, port, pathname } = new URL(url);
  const giveUpMs = options.giveUpMs ?? 3000;
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let text = '';
    let answeredAt: number | undefined;
    let bytesSent = 0;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({
        status: status ? Number(status) : undefined,
        text,
        closedAfterMs: closed && answeredAt !== undefined ? Date.now() - answeredAt : undefined,
        bytesSent,
      });
    };
    const timer = setTimeout(() => finish(false), giveUpMs);
    socket.on('data', (data) => {
      answeredAt ??= Date.now();
      text += data.toString('latin1');
      if (!options.endlessBody && /\r\n\r\n/.test(text) && /"}/.test(text)) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    const framing = options.endlessBody
      ? ['Transfer-Encoding: chunked']
      : [`Content-Length: ${Buffer.byteLength(options.body ?? '')}`];
    const head = [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, ...headerLines, ...framing, '', ''].join(
      '\r\n',
    );
    socket.write(head);
    if (!options.endlessBody) {
      socket.write(options.body ?? '');
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const pump = () => {
      while (!done && !socket.destroyed) {
        bytesSent += frame.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

/**
 * Counts the bytes a server read from each connection, as the connections close.
 *
 * @example
 * ```ts
 * const reads = countBytesRead(server);
 * // … after the exchange:
 * expect(Math.max(...reads.closed)).toBeLessThan(1024 * 1024);
 * ```
 */
export function countBytesRead(server: Server): { closed: number[]; open: () => number[] } {
  const sockets = new Set<Socket>();
  const closed: number[] = [];
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      closed.push(socket.bytesRead);
    });
  });
  return { closed, open: () => [...sockets].map((socket) => socket.bytesRead) };
}
