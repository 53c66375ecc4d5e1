// README's queue-mode snippet, run as written (receiver and worker in one process, on the built
// package), against a redis-server of the test's own that is killed and started again mid-stream.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createReceiver, startWorker } from 'webhook-cms-receiver';
import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { childLines } from '../helpers/child-lines.js';
import { freePort } from '../setup/services.js';
import { killRedis, startDurableRedis } from './bullmq-processes.js';
import { describeWithRedis, freshQueueName, until } from './queue-helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Run with `npx tsup` first: the snippet imports the built package.
const built = existsSync(join(root, 'dist/bullmq.js'));
const token = 'bullmq-readme-token';

/** The first ```ts block of the queue-mode guide (docs/queue-mode.md, linked from the README). */
function readmeQueueSnippet(): string {
  const section = readFileSync(join(root, 'docs/queue-mode.md'), 'utf8');
  const start = section.indexOf('```ts\n') + '```ts\n'.length;
  return section.slice(start, section.indexOf('```', start));
}

// The user's part: the savePost and deletePost the snippet's handlers call ("your own code"),
// and a node:http server for its receiver. An effect is named by the article's slug, which is
// the one thing of the delivery savePost is given, and unique per delivery sent here.
const RUNNER = `
globalThis.savePost = async (article) => {
  // Slow enough that jobs are still waiting when Redis goes away.
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stdout.write('effect ' + article.slug + '\\n');
};
globalThis.deletePost = async () => {};
const { receiver } = await import('./snippet.mjs');
const { createServer } = await import('node:http');
const { webhookHandler } = await import('webhook-cms-receiver/node');
const server = createServer(webhookHandler(receiver)).listen(0, '127.0.0.1', () => {
  process.stdout.write('listening ' + server.address().port + '\\n');
});
`;

describeWithRedis('README queue-mode snippet, run as written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wcr-readme-redis-'));
  // Inside the repository, so that `webhook-cms-receiver` resolves to the built package.
  const app = join(root, '.scratch', `readme-queue-${randomUUID().slice(0, 8)}`);
  let redis: ChildProcess | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (redis) await killRedis(redis);
    rmSync(dir, { recursive: true, force: true });
    rmSync(app, { recursive: true, force: true });
  });

  it.skipIf(!built)(
    'survives a Redis restart mid-stream: no process dies, every delivery answered 200 is handled',
    async () => {
      const port = await freePort();
      redis = await startDurableRedis(port, dir);
      mkdirSync(app, { recursive: true });
      const { outputText } = ts.transpileModule(readmeQueueSnippet(), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(app, 'snippet.mjs'), outputText);
      writeFileSync(join(app, 'runner.mjs'), RUNNER);
      let stderr = '';
      child = spawn(process.execPath, [join(app, 'runner.mjs')], {
        env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}`, WEBHOOK_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk));
      const effects = new Set<string>();
      child.stdout!.on('data', (chunk: Buffer) => {
        for (const line of String(chunk).split('\n')) if (line.startsWith('effect ')) effects.add(line.slice(7));
      });
      const { waitFor } = childLines(child, 'the README snippet');
      const url = `http://127.0.0.1:${(await waitFor(/^listening \d+$/)).split(' ')[1]}/webhook`;

      const accepted: string[] = [];
      // Accepted deliveries by slug: savePost sees the article, not the delivery id.
      const send = async (i: number) => {
        const slug = `post-${i}`;
        const signed = signDelivery({ token, payload: articleSyncPayload({ article: { slug } }) });
        // As the service does: an answer within 10 s or a retry later; shorter here to move on.
        const response = await fetch(url, {
          method: 'POST',
          headers: signed.headers,
          body: signed.body,
          signal: AbortSignal.timeout(1000),
        }).catch(() => undefined);
        if (response?.status === 200) accepted.push(slug);
        await response?.arrayBuffer();
      };
      await Promise.all(Array.from({ length: 10 }, (_, i) => send(i)));
      expect(accepted.length).toBe(10);
      await killRedis(redis);
      const waiting = accepted.filter((slug) => !effects.has(slug));
      for (let i = 10; i < 12; i++) await send(i);
      redis = await startDurableRedis(port, dir);
      // As the service retries: the receiver takes deliveries again once its clients reconnected.
      let i = 12;
      await until(
        'the receiver to accept again',
        async () => {
          const before = accepted.length;
          await send(i++);
          return accepted.length > before;
        },
        60_000,
      );
      for (const end = i + 5; i < end; ) await send(i++);

      expect(waiting.length).toBeGreaterThan(0);
      // A job whose run met the outage waits out BullMQ's lock (30 s) and runs again.
      await until(
        'every accepted delivery to be handled',
        () => accepted.every((slug) => effects.has(slug)),
        75_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the snippet's stderr:\n${stderr}`);
      });
      expect(child.exitCode, stderr).toBeNull();
      expect(child.signalCode).toBeNull();
    },
    150_000,
  );
});

describeWithRedis('BullMQ entries called exactly as their TSDoc shows, no other option', () => {
  it('bullmqQueue(new Queue(name, { connection })), bullmqSource({ queueName, connection }), startWorker(source, { handlers, dedup })', async () => {
    const queueName = freshQueueName('defaults');
    const connection = { url: process.env.REDIS_URL };
    const redis = new Redis(process.env.REDIS_URL!);
    const queue = new Queue(queueName, { connection: { url: process.env.REDIS_URL, enableOfflineQueue: false } });
    const receiver = createReceiver({ token, queue: bullmqQueue(queue), dedup: redisDedupStore(redis) });
    const handled: string[] = [];
    const worker = startWorker(bullmqSource({ queueName, connection }), {
      handlers: { 'article.sync': async ({ deliveryId }) => void handled.push(deliveryId) },
      dedup: redisDedupStore(redis),
    });
    try {
      await worker.ready;
      const signed = signDelivery({ token, payload: articleSyncPayload() });
      expect((await receiver.handle(signed)).body).toEqual({ ok: true, queued: true });
      await until('the handler', () => handled.length === 1);
      expect(handled).toEqual([signed.headers['X-Service-Delivery-Id']]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await redis.quit();
    }
  });
});
