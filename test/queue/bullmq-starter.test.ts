import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { childEnv } from '../helpers/child-env.js';
import { copyStarter } from '../helpers/copy-starter.js';
import { startStarter } from '../helpers/starter-process.js';
import { freePort } from '../setup/services.js';
import { describeWithRedis, freshQueueName, redisUrl, until } from './queue-helpers.js';

const token = 'bullmq-starter-token-5c1f';

describeWithRedis('examples/bullmq-worker, copied out of the repository', () => {
  it('receiver and worker, one command each: queued answers, the worker publishes, a late sync after a trash is skipped', async () => {
    const starter = await copyStarter('bullmq-worker');
    onTestFinished(() => starter.remove());
    const env = { REDIS_URL: redisUrl!, WEBHOOK_TOKEN: token, QUEUE_NAME: freshQueueName('starter') };
    const receiver = await startStarter(
      starter.dir,
      { ...env, PORT: '0', HOST: '127.0.0.1' },
      { command: ['npm', 'run', 'receiver'] },
    );
    onTestFinished(() => receiver.stop());
    const worker = spawn('npm', ['run', 'worker'], {
      cwd: starter.dir,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let printed = '';
    worker.stdout.on('data', (chunk: Buffer) => void (printed += chunk));
    worker.stderr.on('data', (chunk: Buffer) => void (printed += chunk));
    onTestFinished(() => {
      // The whole group: npm, its shell and node.
      if (worker.exitCode === null) process.kill(-worker.pid!, 'SIGKILL');
    });
    await until('the worker to be ready', () => printed.includes('worker ready'), 30_000);

    const send = async (payload: object, deliveryId?: string) => {
      const signed = signDelivery({ token, payload, ...(deliveryId ? { deliveryId } : {}) });
      const response = await fetch(receiver.url, { method: 'POST', headers: signed.headers, body: signed.body });
      return response.json();
    };
    const article = { id: crypto.randomUUID(), slug: 'queued-hello', status: 'published' as const };
    const file = join(starter.dir, 'site', 'articles', 'queued-hello.html');
    const deliveryId = crypto.randomUUID();
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_100, article }), deliveryId)).toEqual({
      ok: true,
      queued: true,
    });
    await until('the worker to publish', () => existsSync(file), 15_000);
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_100, article }), deliveryId)).toEqual({
      ok: true,
      queued: true,
      duplicate: true,
    });

    expect(await send(articleTrashPayload({ timestamp: 1_700_000_300, article }))).toEqual({ ok: true, queued: true });
    await until('the worker to trash', () => !existsSync(file), 15_000);
    // A sync older than the trash arrives late: ordering skips it, so the article stays gone.
    expect(await send(articleSyncPayload({ timestamp: 1_700_000_200, article }))).toEqual({ ok: true, queued: true });
    await until(
      'the late sync to be skipped',
      () => printed.includes(`skipped a stale delivery for article ${article.id}`),
      15_000,
    );
    expect(existsSync(file)).toBe(false);
    expect(printed.match(/published queued-hello/g)).toHaveLength(1);
  }, 180_000);
});

describeWithRedis('examples/bullmq-worker for local development', () => {
  it('`npm run dev` starts receiver and worker together; a worker that cannot reach Redis says so and exits 1', async () => {
    const starter = await copyStarter('bullmq-worker');
    onTestFinished(() => starter.remove());
    const env = { REDIS_URL: redisUrl!, WEBHOOK_TOKEN: token, QUEUE_NAME: freshQueueName('starter-dev') };
    const dev = await startStarter(
      starter.dir,
      { ...env, PORT: '0', HOST: '127.0.0.1' },
      // The worker prints the site's URL too, and may print it first.
      { command: ['npm', 'run', 'dev'], url: /receiving on (http:\/\/\S+)/ },
    );
    onTestFinished(() => dev.stop());
    await dev.waitFor('worker ready', 30_000);
    const article = { id: crypto.randomUUID(), slug: 'dev-hello', status: 'published' as const };
    const signed = signDelivery({ token, payload: articleSyncPayload({ article }) });
    const response = await fetch(dev.url, { method: 'POST', headers: signed.headers, body: signed.body });
    expect(await response.json()).toEqual({ ok: true, queued: true });
    await until(
      'the worker to publish',
      () => existsSync(join(starter.dir, 'site', 'articles', 'dev-hello.html')),
      15_000,
    );

    const closed = `redis://127.0.0.1:${await freePort()}`;
    const worker = spawn('npm', ['run', 'worker'], {
      cwd: starter.dir,
      env: childEnv({ ...env, REDIS_URL: closed }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    worker.stdout.on('data', (chunk: Buffer) => void (printed += chunk));
    worker.stderr.on('data', (chunk: Buffer) => void (printed += chunk));
    const [code] = (await once(worker, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(printed).toMatch(/cannot reach Redis/);
    expect(printed).not.toMatch(/worker ready/);
  }, 180_000);
});
