import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childLines } from '../helpers/child-lines.js';

const script = fileURLToPath(new URL('./receiver-process.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../dist/redis.js', import.meta.url));

/** A receiver running in its own Node process. */
export interface ReceiverProcess {
  name: string;
  webhookUrl: string;
  child: ChildProcess;
  /** Resolves when the process prints a line matching `pattern`. */
  waitFor(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

export interface ReceiverProcessOptions {
  name: string;
  adapter: 'express' | 'fetch';
  client: 'redis' | 'ioredis';
  redisUrl: string;
  keyPrefix: string;
  leaseMs: number;
  token: string;
  behaviour?: 'hang' | 'slow';
}

/**
 * Spawns `receiver-process.mjs`, which imports the built package by name: `npm run build`
 * must have run (CI builds before it tests).
 */
export async function startReceiverProcess(options: ReceiverProcessOptions): Promise<ReceiverProcess> {
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` before the multi-process tests.`);
  const { name, adapter, client, redisUrl, keyPrefix, leaseMs, token, behaviour = '' } = options;
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      NAME: name,
      ADAPTER: adapter,
      CLIENT: client,
      REDIS_URL: redisUrl,
      KEY_PREFIX: keyPrefix,
      LEASE_MS: String(leaseMs),
      TOKEN: token,
      BEHAVIOUR: behaviour,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { waitFor, exited } = childLines(child, `receiver process ${name}`);
  const port = (await waitFor(/^listening \d+$/)).split(' ')[1];
  return {
    name,
    webhookUrl: `http://127.0.0.1:${port}/webhook`,
    child,
    waitFor,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
