import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { childLines } from '../helpers/child-lines.js';

const script = fileURLToPath(new URL('./worker-bullmq.mjs', import.meta.url));

/** A spawned `worker-bullmq.mjs`, and what it printed. */
export interface BullWorkerProcess {
  child: ChildProcess;
  /** Every line printed so far. */
  lines: string[];
  waitFor(pattern: RegExp): Promise<string>;
  /** True while the process has neither exited nor been killed. */
  alive(): boolean;
  kill(): Promise<void>;
}

/** Starts a worker process (see worker-bullmq.mjs for `env`), resolved once it printed `ready`. */
export async function startBullWorker(env: Record<string, string>): Promise<BullWorkerProcess> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = partial + String(chunk);
    const complete = text.split('\n');
    partial = complete.pop()!;
    lines.push(...complete.filter(Boolean));
  });
  const { waitFor, exited } = childLines(child, 'bullmq worker process');
  const alive = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (alive()) child.kill('SIGKILL');
    await exited;
  };
  await waitFor(/^ready$/);
  return { child, lines, waitFor, alive, kill };
}

/**
 * A redis-server with an append-only file fsynced on every write, as a queue's Redis must run
 * so that a restart loses no job: killed and started again on the same port and directory, it
 * comes back with every job it acknowledged.
 */
export async function startDurableRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      log += String(chunk);
      if (log.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited before it was ready:\n${log}`)));
    child.once('error', (error) => reject(new Error(`cannot start redis-server (${error.message})`)));
  });
  return child;
}

/** Kills a redis-server at once (SIGKILL) and waits for it to be gone. */
export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
