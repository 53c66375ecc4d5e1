import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on 127.0.0.1 and the way to stop it. */
export interface RunningServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
  /** The Node server, where there is one: tests count what it read from each socket. */
  server?: import('node:net').Server;
}

/**
 * Starts `server` on 127.0.0.1 with a free port (port 0).
 *
 * @example
 * ```ts
 * const { url, close } = await listen(createServer(app));
 * ```
 */
export async function listen(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return running(server);
}

/**
 * Wraps a server that is already listening (e.g. one made by `@hono/node-server`'s `serve`).
 *
 * @example
 * ```ts
 * const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
 * await once(server, 'listening');
 * const { url } = running(server);
 * ```
 */
export function running(server: Server): RunningServer {
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive sockets would otherwise hold close() open until they time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
