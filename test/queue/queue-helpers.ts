import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';

/** The Redis the tests use: test/setup/services.ts starts one when REDIS_URL is unset. */
export const redisUrl = process.env.REDIS_URL;

const HOW_TO_RUN = 'skipped: set REDIS_URL=redis://127.0.0.1:6379 (the test setup starts redis-server when it can)';

/** A describe block that needs Redis: skipped, saying how to run it, when REDIS_URL is unset. */
export const describeWithRedis = (name: string, body: () => void) =>
  redisUrl ? describe(name, body) : describe.skip(`${name} (${HOW_TO_RUN})`, body);

/** BullMQ connection options for the test Redis; no offline queue, so a dead Redis fails at once. */
export function bullConnection(url = redisUrl!) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port), maxRetriesPerRequest: null, enableOfflineQueue: true };
}

/** A queue name no other test or run shares. */
export const freshQueueName = (label: string) => `wcr-${label}-${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns true, or fails after `timeoutMs` saying what it waited for. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
