import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { redisLedger } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, deliver } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { connect, describeWithRedis, freshPrefix, redisUrl, type TestClient } from '../redis/redis-clients.js';
import { runCli } from './run-cli.js';

const TOKEN = 'ledger-cli-redis-token-5b1e';

describeWithRedis('npx webhook-cms-receiver ledger on a Redis ledger', () => {
  const prefix = freshPrefix();
  let redis: TestClient;
  let endpoint: RunningServer;

  beforeAll(async () => {
    redis = await connect('redis');
    const ledger = redisLedger(redis.client, { keyPrefix: prefix });
    const receiver = createReceiver({ token: TOKEN, ledger, logger: false });
    endpoint = await listen(createServer(webhookHandler(receiver, { 'article.sync': async () => {} })));
    const url = `${endpoint.url}/webhook`;
    for (const token of [TOKEN, TOKEN, 'someone-elses-token-value']) {
      await deliver(url, { token, payload: articleSyncPayload(), maxAttempts: 1 });
    }
    await ledger.flush();
  });

  afterAll(async () => {
    await endpoint?.close();
    await redis?.close();
  });

  const cli = (args: string[]) =>
    runCli(['ledger', ...args, '--database-url', redisUrl!, '--prefix', prefix], { secret: TOKEN });

  it('lists and sums up what a real receiver recorded', async () => {
    const list = await cli(['list', '--json']);
    expect(list.stderr).toBe('');
    const { rows } = JSON.parse(list.stdout) as { rows: Array<{ status: number }> };
    expect(rows.map((row) => row.status).sort()).toEqual([200, 200, 401]);
    const summary = await cli(['summary', '--since', '1h']);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(/^total\s+2\s+1\s+0\s+0$/m);
  });

  it('fails with the reason, not a hang, when Redis is not there', async () => {
    const run = await runCli(['ledger', 'list', '--database-url', 'redis://127.0.0.1:1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('could not open the ledger');
  });
});
