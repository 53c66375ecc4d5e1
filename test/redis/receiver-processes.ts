import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

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
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return resolve(seen);
      waiters.push({ pattern, resolve });
      void exited.then(() => reject(new Error(`receiver process ${name} exited before printing ${pattern}`)));
    });
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
