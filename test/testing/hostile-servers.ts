import { createServer, type ServerResponse } from 'node:http';
import { listen, type RunningServer } from '../helpers/listen.js';

/** A server that answers every request with a body that never ends, and what it saw. */
export interface EndlessServer extends RunningServer {
  /** Requests answered so far. */
  requests: number;
  /** Answers whose connection the client closed (it stopped reading and cancelled). */
  closedByClient: number;
}

/**
 * Answers 200 and streams text forever, as fast as the client reads, until the client
 * closes the connection: a client that reads the whole answer never returns.
 */
export async function endlessServer(): Promise<EndlessServer> {
  const state = { requests: 0, closedByClient: 0 };
  const server = createServer((req, res) => {
    state.requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    stream(res, () => state.closedByClient++);
  });
  const running = await listen(server);
  return Object.assign(state, running, {
    close: () => {
      server.closeAllConnections();
      return running.close();
    },
  });
}

function stream(res: ServerResponse, onClientClose: () => void): void {
  const chunk = Buffer.alloc(16 * 1024, 'a');
  let open = true;
  const pump = () => {
    while (open && res.write(chunk)) {
      // Writes until the socket's buffer is full; `drain` resumes.
    }
  };
  res.on('drain', pump);
  res.on('close', () => {
    open = false;
    onClientClose();
  });
  pump();
}

/** A server that counts the requests it got and answers 200 `{"ok": true}`. */
export interface CountingServer extends RunningServer {
  requests: number;
}

export async function countingServer(): Promise<CountingServer> {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    state.requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  return Object.assign(state, await listen(server));
}

/** Answers every request with `status` and a `Location` header pointing at `location`. */
export async function redirectingServer(status: number, location: string): Promise<RunningServer> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { location, 'content-type': 'text/plain' });
    res.end(`Moved to ${location}`);
  });
  return listen(server);
}

/** Answers every request 500 `{"error": "Internal error"}`, as a receiver does when a handler throws. */
export async function failingServer(): Promise<RunningServer> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":"Internal error"}');
  });
  return listen(server);
}
