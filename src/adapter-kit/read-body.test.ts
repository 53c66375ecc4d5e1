import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readFetchBody, readLimited, readStream } from './read-body.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A real server that reads each request with readLimited and answers with what it got. */
async function serve(limit: number): Promise<number> {
  server = createServer(async (req: IncomingMessage, res) => {
    const body = await readLimited(req, limit);
    res.writeHead(body ? 200 : 413).end(body ? String(body.byteLength) : 'too large');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server!.address() as AddressInfo).port;
}

/** Sends the body in chunks without a Content-Length, so the server cannot refuse it up front. */
function post(port: number, chunks: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST' }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('readLimited on a Node request', () => {
  it('joins every chunk of a body within the limit', async () => {
    const port = await serve(100);
    expect(await post(port, ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(20)])).toEqual({ status: 200, text: '100' });
  });

  it('gives up past the limit and leaves the request able to answer 413', async () => {
    const port = await serve(100);
    expect(await post(port, ['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(5000)])).toEqual({
      status: 413,
      text: 'too large',
    });
  });
});

describe('readStream with captureContext', () => {
  /** A server that reads with readStream and answers with the order of what happened. */
  async function serveSteps(limit: number): Promise<number> {
    server = createServer((req, res) => {
      const steps: string[] = [];
      let inCallersTurn = true;
      readStream(req, {
        limit,
        captureContext: () => {
          steps.push(inCallersTurn ? 'captured in the caller’s turn' : 'captured later');
          return (continuation, value) => {
            steps.push('resumed');
            continuation(value);
          };
        },
        done: (body) => res.writeHead(body ? 200 : 413).end([...steps, body ? 'done' : 'too large'].join(', ')),
        fail: () => res.writeHead(500).end(steps.join(', ')),
      });
      inCallersTurn = false;
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server!.address() as AddressInfo).port;
  }

  it('captures once, in the caller’s turn, and settles a whole body through the runner', async () => {
    const port = await serveSteps(100);
    expect(await post(port, ['a'.repeat(40), 'b'.repeat(40)])).toEqual({
      status: 200,
      text: 'captured in the caller’s turn, resumed, done',
    });
  });

  it('settles a body past the limit through the runner too', async () => {
    const port = await serveSteps(100);
    expect(await post(port, ['a'.repeat(60), 'b'.repeat(60)])).toEqual({
      status: 413,
      text: 'captured in the caller’s turn, resumed, too large',
    });
  });
});

describe('readLimited with a chunk listener', () => {
  const chunksOf = (texts: string[]) => texts.map((text) => new TextEncoder().encode(text));

  it('shows every kept chunk, in order, before the read resolves', async () => {
    const seen: string[] = [];
    const body = await readLimited(stream(chunksOf(['ab', 'cd', 'e'])), 100, (chunk) =>
      seen.push(new TextDecoder().decode(chunk)),
    );
    expect(seen).toEqual(['ab', 'cd', 'e']);
    expect(new TextDecoder().decode(body)).toBe('abcde');
  });

  it('shows string chunks as their UTF-8 bytes', async () => {
    const seen: number[] = [];
    await readLimited(stream(['é']), 100, (chunk) => seen.push(...chunk));
    expect(seen).toEqual([0xc3, 0xa9]);
  });

  it('shows no chunk past the limit', async () => {
    let total = 0;
    expect(await readLimited(stream(chunksOf(['a'.repeat(60), 'b'.repeat(60)])), 100, (c) => (total += c.length))).toBe(
      undefined,
    );
    expect(total).toBe(60);
  });

  it('fails the read of a Node request when the listener throws, and the server still answers', async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      const failed = await readLimited(req, 1000, () => {
        throw new Error('listener broke');
      }).then(
        () => 'read',
        (error: Error) => error.message,
      );
      res.writeHead(500).end(failed);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    expect(await post((server!.address() as AddressInfo).port, ['abc'])).toEqual({
      status: 500,
      text: 'listener broke',
    });
  });
});

/** A Fetch stream of the given chunks, so readLimited takes its iterable path. */
function stream(chunks: (Uint8Array | string)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as Uint8Array);
      controller.close();
    },
  });
}

describe('readFetchBody', () => {
  const body = 'x'.repeat(300);

  it('reads the whole body when Content-Length is within the limit', async () => {
    const request = new Request('http://127.0.0.1/', { method: 'POST', body, headers: { 'content-length': '300' } });
    expect((await readFetchBody(request, 1000))?.byteLength).toBe(300);
  });

  it('streams and gives up past the limit when there is no Content-Length', async () => {
    const request = new Request('http://127.0.0.1/', { method: 'POST', body });
    expect(await readFetchBody(request, 100)).toBeUndefined();
  });

  it('reads an empty body as no bytes', async () => {
    expect(await readFetchBody(new Request('http://127.0.0.1/', { method: 'POST' }), 100)).toEqual(new Uint8Array(0));
  });
});
