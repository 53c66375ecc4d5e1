import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLedger } from 'webhook-cms-receiver';
import { ledgerPage } from 'webhook-cms-receiver/node';
import { listen, type RunningServer } from '../helpers/listen.js';

/** One request with any method, even those `fetch` refuses to send. */
function raw(url: string, method: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const sent = request(url, { method, headers, timeout: 5000 }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        body += chunk;
      });
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
    });
    sent.on('timeout', () => sent.destroy(new Error(`no answer to ${method}`)));
    sent.on('error', reject);
    sent.end();
  });
}

describe('the ledger page on plain node:http', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await listen(createServer(ledgerPage(memoryLedger(), { authorize: () => true })));
  });
  afterAll(() => server?.close());

  it('answers 405 to other methods, TRACE too (a Fetch Request cannot carry it), and keeps serving', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'DELETE']) {
      const answer = await raw(`${server.url}/`, method);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD, POST');
      expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    }
    const head = await raw(`${server.url}/`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect((await raw(`${server.url}/?status=2xx`, 'GET')).body).toContain('No request matches these filters.');
  });

  it('takes a Host that makes no URL as localhost: pages show, a POST fails the same-origin check', async () => {
    const page = await raw(`${server.url}/`, 'GET', { host: 'bad host^' });
    expect(page.status).toBe(200);
    const post = await raw(`${server.url}/?action=recover`, 'POST', { host: 'bad host^', origin: 'http://bad host^' });
    expect(post.status).toBe(403);
  });
});
