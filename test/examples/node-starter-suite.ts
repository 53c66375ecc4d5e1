import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { runStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball, expectRefusals } from './starter-checks.js';

/** A started copy of a starter: its webhook URL, its output, and `settled()` for its event log. */
export interface RunningStarter {
  endpoint: string;
  /** Sends a test event last and resolves to the starter's event lines once that one is logged. */
  settled(): Promise<string[]>;
  output(): string;
}

/** What differs between the Node server starters that share this suite. */
export interface NodeStarterSuite {
  /** The folder under `examples/`. */
  name: string;
  token: string;
  /** Tests of what only this starter does, given a function that starts a fresh copy. */
  more?: (start: (env?: Record<string, string>) => Promise<RunningStarter>) => void;
}

/**
 * The behaviour every Node server starter shares (express-publisher aside, which writes files),
 * checked on a copy made outside the repository, installed from the packed tarball and started
 * with `npm start`, as a user would run it.
 */
export function describeNodeStarter({ name, token, more }: NodeStarterSuite): void {
  let starter: CopiedStarter;
  beforeAll(async () => {
    starter = await copyStarter(name);
  }, 180_000);
  afterAll(() => starter?.remove());

  // A fresh `npm start` per test: its log and its dedup memory are the test's alone.
  async function start(env: Record<string, string> = {}): Promise<RunningStarter> {
    const server = await startStarter(starter.dir, { WEBHOOK_TOKEN: token, PORT: '0', HOST: '127.0.0.1', ...env });
    onTestFinished(() => server.stop());
    const lines = () =>
      server
        .output()
        .split('\n')
        .filter((line) => /^(sync|trash|test|skip) /.test(line));
    // Handler logs can reach the pipe after the HTTP answer. Called once per server, last: its
    // test event logs after everything before it, so once its line is there, all of them are.
    const settled = async () => {
      const answer = await send(server.url, signDelivery({ token, payload: testPayload() }));
      expect(answer.body).toEqual({ ok: true });
      await server.waitFor(/^test {2}Test Connection received$/m);
      return lines();
    };
    return { endpoint: server.url, settled, output: server.output };
  }

  describe(`examples/${name}, copied out of the repository`, () => {
    it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
      await expectInstalledFromTarball(starter);
    });

    it('logs sync, trash and test events and answers published_url from PUBLIC_BASE_URL', async () => {
      const { endpoint, settled, output } = await start({ PUBLIC_BASE_URL: 'https://news.example.org/' });
      expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
      const slug = `${name}-post`;
      const sync = articleSyncPayload({ article: { slug, title: 'Title' } });
      const synced = await deliver(endpoint, { token, payload: sync, deliveryId: 'd-1', maxAttempts: 1 });
      expect(synced.summary).toEqual({
        ok: true,
        duplicate: false,
        status: 200,
        publishedUrl: `https://news.example.org/${slug}`,
      });
      const trash = articleTrashPayload({ article: { id: sync.article.id, slug } });
      const trashed = await send(endpoint, signDelivery({ token, payload: trash, deliveryId: 'd-2' }));
      expect(trashed.body).toEqual({ ok: true });
      expect(await settled()).toEqual([
        `sync  ${slug} (published) "Title" [d-1]`,
        `trash ${slug} [d-2]`,
        'test  Test Connection received',
      ]);
      expect(output()).not.toContain(token);
    });

    it('answers a redelivery as a duplicate and logs nothing for it', async () => {
      const { endpoint, settled } = await start();
      const payload = articleSyncPayload({ article: { slug: 'once' } });
      const first = await deliver(endpoint, { token, payload, maxAttempts: 1 });
      const again = await deliver(endpoint, { token, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
      expect(again.summary).toEqual({
        ok: true,
        duplicate: true,
        status: 200,
        publishedUrl: 'https://blog.example.com/once',
      });
      expect(await settled()).toEqual([
        `sync  once (published) "${payload.article.title}" [${first.deliveryId}]`,
        'test  Test Connection received',
      ]);
    });

    it('refuses a stale, a tampered and a wrongly signed delivery, and logs nothing', async () => {
      const { endpoint, settled } = await start();
      await expectRefusals(endpoint, token);
      expect(await settled()).toEqual(['test  Test Connection received']);
    });

    it('`npm start` without WEBHOOK_TOKEN fails with a message naming it', async () => {
      const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '', PORT: '0' });
      expect(code).not.toBe(0);
      expect(output).toContain('WEBHOOK_TOKEN is not set');
    });

    more?.(start);
  });
}
