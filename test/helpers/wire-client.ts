import { request, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';

/** What a client that writes its whole request before reading saw. */
export interface WriteFirstExchange {
  /** The status line's code, or undefined when the connection was reset before any answer was read. */
  status: number | undefined;
  /** The answer's head and body as read, latin1. */
  text: string;
  /** The socket error, e.g. ECONNRESET, if one came. */
  error: string | undefined;
}

/**
 * Sends a request as Python's http.client and most HTTP clients do: the head and the whole
 * body first, and only then reads the answer. A server that resets the connection while body
 * bytes are still unread makes such a client lose the answer.
 *
 * @example
 * ```ts
 * const exchange = await writeFirst(url, ['Authorization: Bearer token'], Buffer.alloc(5 * 1024 * 1024));
 * ```
 */
export function writeFirst(
  url: string,
  headerLines: string[],
  body: Uint8Array,
  options: { chunked?: boolean; giveUpMs?: number } = {},
): Promise<WriteFirstExchange> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let text = '';
    let error: string | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : undefined, text, error });
    };
    const timer = setTimeout(finish, options.giveUpMs ?? 15_000);
    socket.pause();
    socket.on('data', (data) => {
      text += data.toString('latin1');
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (thrown: NodeJS.ErrnoException) => {
      error = thrown.code ?? thrown.message;
    });
    const framing = options.chunked ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${body.byteLength}`];
    socket.write(
      [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, ...headerLines, ...framing, '', ''].join('\r\n'),
    );
    const framed = options.chunked
      ? Buffer.concat([Buffer.from(`${body.byteLength.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
      : body;
    // Read only once every byte was handed to the kernel and flushed, as a write-first client does.
    socket.write(framed, () => socket.resume());
  });
}

/** One request on a shared keep-alive agent: its status, its `Connection` header, or the error. */
export interface AgentAnswer {
  status: number | undefined;
  connection: string | undefined;
  error: string | undefined;
}

/**
 * A keep-alive client with one socket, reusing it for each request as long as the server
 * lets it: the way the service's HTTP client and most others behave.
 *
 * @example
 * ```ts
 * const client = keepAliveClient();
 * await client.send(url, { method: 'GET' });
 * client.close();
 * ```
 */
export function keepAliveClient() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send(
      url: string,
      outgoing: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array },
    ): Promise<AgentAnswer> {
      return new Promise((resolve) => {
        const req = request(url, { agent, method: outgoing.method ?? 'POST', headers: outgoing.headers }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode, connection: res.headers.connection, error: undefined }),
          );
          res.on('error', (error: NodeJS.ErrnoException) =>
            resolve({ status: res.statusCode, connection: undefined, error: error.code ?? error.message }),
          );
        });
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ status: undefined, connection: undefined, error: error.code ?? error.message }),
        );
        req.end(outgoing.body);
      });
    },
    close: () => agent.destroy(),
  };
}
