import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { listen, type RunningServer } from '../helpers/listen.js';
import { countingServer, endlessServer, failingServer, redirectingServer } from '../testing/hostile-servers.js';
import { runCli } from './run-cli.js';

const token = 'cli-send-answers-token-c41d';
const env = { WEBHOOK_TOKEN: token };
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const started = <T extends RunningServer>(server: T): T => {
  servers.push(server);
  return server;
};

describe('webhook-cms-receiver send: answers the service would not take at face value', () => {
  it('reads at most 64 KiB of an endless answer, says so, and closes the connection', async () => {
    const endless = started(await endlessServer());
    const run = await runCli(['send', '--url', `${endless.url}/webhook`, '--event', 'test', '--no-retry'], {
      env,
      secret: token,
    });
    expect(run.stdout).toMatch(/attempt 1: 200 in \d+ ms .*\(only the first 64 KiB read\)/);
    expect(run.code).toBe(0);
    await expect.poll(() => endless.closedByClient).toBe(1);
  }, 20_000);

  it('does not follow a 307 to another port: it names the status and the Location and exits 1', async () => {
    const elsewhere = started(await countingServer());
    const location = `${elsewhere.url}/webhook`;
    const redirecting = started(await redirectingServer(307, location));
    const run = await runCli(['send', '--url', `${redirecting.url}/webhook`, '--event', 'test', '--no-retry'], {
      env,
      secret: token,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`attempt 1: 307 redirect to ${location}`);
    expect(run.stdout).toContain('the service follows no redirect');
    expect(run.stdout).not.toContain('delivered');
    expect(elsewhere.requests).toBe(0);
  });

  it('points a 500 at the server log and onError', async () => {
    const failing = started(await failingServer());
    const run = await runCli(['send', '--url', `${failing.url}/webhook`, '--event', 'test', '--no-retry'], {
      env,
      secret: token,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/gave up after 1 attempt.*\n.*500.*server's log.*onError/);
  });

  it('names the fix when the endpoint answers 500 Server misconfigured (a JSON parser ran first)', async () => {
    const app = express();
    app.use(express.json());
    app.post('/webhook', webhookHandler(createReceiver({ token, logger: false })));
    const misconfigured = started(await listen(createServer(app)));
    const run = await runCli(['send', '--url', `${misconfigured.url}/webhook`, '--event', 'test', '--no-retry'], {
      env,
      secret: token,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /500 Server misconfigured: .*before the webhook route \(a JSON or text body parser\).*mount the body parser after the webhook route/,
    );
    expect(run.stdout).not.toMatch(/handling the delivery/);
  });
});
