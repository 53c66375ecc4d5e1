import { expectedRefusal } from './quiet.js';
import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { probeEndpoint, type ProbeResult } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

const token = 'probe-clock-token-51aa';
let endpoint: RunningServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/**
 * A correct Express endpoint on a machine whose clock is `skewSeconds` off: its receiver and
 * its `Date` header both read that clock, as on a real host without NTP.
 */
async function skewedEndpoint(skewSeconds: number): Promise<string> {
  const now = () => Date.now() + skewSeconds * 1000;
  const app = express();
  app.post('/webhook', webhookHandler(createReceiver({ token, now, onRejected: expectedRefusal }), {}));
  const server = createServer((req, res) => {
    res.setHeader('date', new Date(now()).toUTCString());
    app(req, res);
  });
  endpoint = await listen(server);
  return `${endpoint.url}/webhook`;
}

const row = (result: ProbeResult, name: string) => result.rows.find((r) => r.name === name)!;

describe('probeEndpoint() against an endpoint whose clock is off', () => {
  it.each([
    ['ahead', 400, 'future timestamp', 'stale timestamp'],
    ['behind', -400, 'stale timestamp', 'future timestamp'],
  ])('%s by 400 s: blames the clock, not replay, for the timestamp it accepts', async (_, skew, accepted, refused) => {
    const result = await probeEndpoint(await skewedEndpoint(skew), { token });
    const wrong = row(result, accepted);
    expect(wrong.result).toBe('fail');
    expect(wrong.reason).toMatch(/clock/);
    expect(wrong.reason).toMatch(new RegExp(`${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'}`));
    expect(wrong.reason).not.toMatch(/replayed/);
    expect(row(result, refused).result).toBe('pass');
    expect(row(result, 'test event').reason).toMatch(/Request expired.*clock/);
  });

  it('fails "bad signature" when the refusal was Request expired: the signature was never checked', async () => {
    const result = await probeEndpoint(await skewedEndpoint(400), { token });
    expect(row(result, 'bad signature')).toMatchObject({
      result: 'fail',
      reason: expect.stringMatching(/^403 \{"error":"Request expired"\}.*expected 403 Invalid signature.*clock/),
    });
  });
});
