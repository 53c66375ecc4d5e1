import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY } from 'webhook-cms-receiver';
import { DYNAMODB_PARTITION_KEY, DYNAMODB_SORT_KEY, DYNAMODB_TTL_ATTRIBUTE } from 'webhook-cms-receiver/dynamodb';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, run with `npm run dev`: both
// Lambda handlers on this machine, on DynamoDB Local (Java 17) and fauxqs, started by the starter.
const token = 'aws-serverless-starter-token-51c0';
const java = spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
const title = 'examples/aws-serverless, copied out of the repository';
let starter: CopiedStarter;
let running: RunningStarter | undefined;

describe.skipIf(!java)(java ? title : `${title} (skipped: DynamoDB Local needs Java 17 or later on PATH)`, () => {
  beforeAll(async () => {
    starter = await copyStarter('aws-serverless');
  }, 300_000);
  afterAll(async () => {
    await running?.stop();
    await starter?.remove();
  });

  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('says what to set when WEBHOOK_TOKEN is missing', async () => {
    const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '' }, { command: ['npm', 'run', 'dev'] });
    expect(code).not.toBe(0);
    expect(output).toContain('Set WEBHOOK_TOKEN');
  });

  it('`npm run dev`: queued in milliseconds, published by the worker once; a redelivery is a duplicate; a 1 MiB body goes through S3', async () => {
    running = await startStarter(
      starter.dir,
      { WEBHOOK_TOKEN: token, PORT: '0', HOST: '127.0.0.1' },
      { command: ['npm', 'run', 'dev'], url: /receiving on (http:\/\/\S+)/, timeoutMs: 120_000 },
    );
    const send = async (payload: object, deliveryId: string) => {
      const signed = signDelivery({ token, payload, deliveryId });
      const response = await fetch(running!.url, { method: 'POST', headers: signed.headers, body: signed.body });
      return { status: response.status, body: await response.json() };
    };
    const id = randomUUID();
    const hello = articleSyncPayload({ article: { slug: 'serverless-hello' } });
    expect(await send(hello, id)).toEqual({ status: 200, body: { ok: true, queued: true } });
    await running.waitFor(new RegExp(`published serverless-hello .*\\[${id}\\]`), 30_000);
    expect(await send(hello, id)).toEqual({ status: 200, body: { ok: true, queued: true, duplicate: true } });

    const large = randomUUID();
    const big = articleSyncPayload({ article: { slug: 'serverless-large', content_html: 'x'.repeat(1024 * 1024) } });
    expect(await send(big, large)).toEqual({ status: 200, body: { ok: true, queued: true } });
    await running.waitFor(new RegExp(`published serverless-large \\(1048576 characters\\) .*\\[${large}\\]`), 30_000);

    // Once each: the duplicate never reached the worker.
    expect(running.output().match(/published serverless-hello /g)).toHaveLength(1);
    expect(running.output()).not.toContain(token);
  }, 180_000);
});

describe('examples/aws-serverless template.yaml agrees with the code it deploys', () => {
  const read = (file: string) =>
    readFileSync(fileURLToPath(new URL(`../../examples/aws-serverless/${file}`, import.meta.url)), 'utf8');
  const template = read('template.yaml');
  const number = (pattern: RegExp) => Number(pattern.exec(template)?.[1]);

  it('the table has the store’s keys, on-demand billing and its TTL attribute', () => {
    expect(template).toContain(`- { AttributeName: ${DYNAMODB_PARTITION_KEY}, KeyType: HASH }`);
    expect(template).toContain(`- { AttributeName: ${DYNAMODB_SORT_KEY}, KeyType: RANGE }`);
    expect(template).toContain('BillingMode: PAY_PER_REQUEST');
    expect(template).toMatch(
      new RegExp(`TimeToLiveSpecification:\\s+AttributeName: ${DYNAMODB_TTL_ATTRIBUTE}\\s+Enabled: true`),
    );
  });

  it('the queue redrives above the worker’s attempts, hides a message six worker timeouts, and the worker reports batch item failures', () => {
    expect(number(/maxReceiveCount: (\d+)/)).toBeGreaterThan(DEFAULT_RETRY.attempts);
    const workerTimeout = number(/Handler: worker\.handler[\s\S]*?Timeout: (\d+)/);
    expect(number(/VisibilityTimeout: (\d+)/)).toBeGreaterThanOrEqual(6 * workerTimeout);
    expect(workerTimeout).toBeLessThanOrEqual(900);
    const handlerTimeoutMs = Number(/handlerTimeoutMs: ([\d_]+)/.exec(read('worker.mjs'))?.[1]?.replaceAll('_', ''));
    expect(handlerTimeoutMs).toBeLessThan(workerTimeout * 1000);
    expect(template).toContain('FunctionResponseTypes: [ReportBatchItemFailures]');
  });

  it('the bucket expires what is left under the bodies’ prefix, and the receiver is a Function URL', () => {
    expect(template).toMatch(/Status: Enabled\s+Prefix: webhook-bodies\/\s+ExpirationInDays: 14/);
    expect(template).toMatch(/FunctionUrlConfig:\s+AuthType: NONE/);
  });
});
