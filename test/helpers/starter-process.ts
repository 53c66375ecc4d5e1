import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { childEnv } from './child-env.js';

/** A running starter: the URL it printed, everything it printed so far, and how to stop it. */
export interface RunningStarter {
  /** The starter's webhook endpoint: the first `http://…` URL it printed, or where `url` says. */
  url: string;
  output(): string;
  /**
   * Resolves once the output contains `pattern` (or `pattern(output)` is true); rejects with the
   * output after `timeoutMs` (default 5 s). A line logged while handling a request can arrive
   * after its HTTP answer.
   */
  waitFor(pattern: OutputPattern, timeoutMs?: number): Promise<void>;
  /** Stops the whole process group (npm, its shell and the server). */
  stop(): Promise<void>;
}

/** Text to find in a starter's output, or a test of the whole output. */
export type OutputPattern = string | RegExp | ((output: string) => boolean);

/** Options of {@link startStarter} and {@link runStarter}. */
export interface StarterCommand {
  /** Default `['npm', 'start']`: the command every Node starter's README gives. */
  command?: [string, ...string[]];
  /** How long to wait, in milliseconds. Default 30 s. */
  timeoutMs?: number;
  /**
   * Where the endpoint's URL is printed: its first group. Default: the first `http://…` URL.
   * A command that starts several processes (`npm run dev`) may print another URL first.
   */
  url?: RegExp;
}

// A starter on PGlite creates its database on first start: 15-20 s on a loaded two-core machine.
const STARTUP_MS = 60_000;

/**
 * Starts a copied starter with its documented command (`npm start`) and the given environment
 * (`PORT`, `HOST`, `WEBHOOK_TOKEN`, …), and waits until it prints an http URL. Rejects with
 * everything it printed if it exits or stays silent first.
 *
 * @example
 * ```ts
 * const server = await startStarter(starter.dir, { WEBHOOK_TOKEN: token, PORT: '0', HOST: '127.0.0.1' });
 * onTestFinished(() => server.stop());
 * ```
 */
export function startStarter(
  dir: string,
  env: Record<string, string>,
  options: StarterCommand = {},
): Promise<RunningStarter> {
  const { child, output } = spawnIn(dir, env, options);
  const stop = () => stopGroup(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`The starter printed no URL within ${options.timeoutMs ?? STARTUP_MS} ms:\n${output()}`));
    }, options.timeoutMs ?? STARTUP_MS);
    const onData = () => {
      const url = options.url ? options.url.exec(output())?.[1] : /http:\/\/[^\s]+/.exec(output())?.[0];
      if (!url) return;
      clearTimeout(timer);
      resolve({ url, output, stop, waitFor: (pattern, timeoutMs) => waitFor(output, pattern, timeoutMs) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The starter exited with ${code} before printing its URL:\n${output()}`));
    });
  });
}

/**
 * Runs a copied starter's command to completion (or kills it after the timeout) and returns
 * its exit code and output.
 *
 * @example
 * ```ts
 * const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '' });
 * ```
 */
export async function runStarter(
  dir: string,
  env: Record<string, string>,
  options: StarterCommand = {},
): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnIn(dir, env, options);
  const timer = setTimeout(() => void stopGroup(child), options.timeoutMs ?? 30_000);
  // 'close', not 'exit': only then has all output been read.
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, output: output() };
}

async function waitFor(output: () => string, pattern: OutputPattern, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const found = () =>
    typeof pattern === 'string'
      ? output().includes(pattern)
      : typeof pattern === 'function'
        ? pattern(output())
        : pattern.test(output());
  while (!found()) {
    if (Date.now() > deadline)
      throw new Error(`The starter did not print ${String(pattern)}; it printed:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function spawnIn(dir: string, env: Record<string, string>, options: StarterCommand) {
  const [command, ...args] = options.command ?? ['npm', 'start'];
  // Its own process group, so stopping it also stops the server npm started under a shell.
  const child = spawn(command, args, {
    cwd: dir,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  const collect = (chunk: Buffer) => void (printed += chunk.toString('utf8'));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return { child, output: () => printed };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const closed = once(child, 'close');
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  await closed;
}
