import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { listen, type RunningServer } from '../helpers/listen.js';
import { runCli } from '../cli/run-cli.js';

const OLD = 'cli-rotation-old-token-0123';
const NEW = 'cli-rotation-new-token-4567';

describe('webhook-cms-receiver rotation', () => {
  let armed: RunningServer;
  let plain: RunningServer;
  beforeAll(async () => {
    const serve = (receiver: ReturnType<typeof createReceiver>) => listen(createServer(webhookHandler(receiver, {})));
    armed = await serve(createReceiver({ token: [NEW, OLD], rotatingUntil: Date.now() + 3_600_000, logger: false }));
    plain = await serve(createReceiver({ token: OLD, logger: false }));
  });
  afterAll(() => Promise.all([armed?.close(), plain?.close()]));

  it('prints the steps without a URL', async () => {
    const run = await runCli(['rotation']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^1\. Arm:/);
    expect(run.stdout).toContain('5. Disarm');
  });

  it("checks a running endpoint's state and never prints the token", async () => {
    const armedRun = await runCli(['rotation', `${armed.url}/webhook`, '--json'], {
      env: { WEBHOOK_TOKEN: NEW },
      secret: NEW,
    });
    expect(armedRun.code).toBe(0);
    expect(JSON.parse(armedRun.stdout)).toMatchObject({ window: 'armed', token: 'accepted' });
    const plainRun = await runCli(['rotation', `${plain.url}/webhook`], { env: { WEBHOOK_TOKEN: NEW }, secret: NEW });
    expect(plainRun.code).toBe(0);
    expect(plainRun.stdout).toContain('rotation window: not armed');
    expect(plainRun.stdout).toContain('NOT accepted (401)');
    const noToken = await runCli(['rotation', `${plain.url}/webhook`, '--json']);
    expect(JSON.parse(noToken.stdout)).toMatchObject({ window: 'not-armed', token: 'not-checked' });
  });
});
