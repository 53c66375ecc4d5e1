import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A started example process, what it printed, and how to stop it. */
export interface SpawnedExample {
  /** The first `http://…` URL the example printed (its webhook endpoint). */
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Runs `node <script>` in `cwd` with `env` added, and waits until it prints an http URL.
 * Rejects with everything it printed if it exits first.
 *
 * @example
 * ```ts
 * const example = await spawnExample(dir, 'server.mjs', { WEBHOOK_TOKEN: token, PORT: '0' });
 * ```
 */
export function spawnExample(cwd: string, script: string, env: Record<string, string>): Promise<SpawnedExample> {
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const output = () => printed;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      const url = /http:\/\/[^\s]+/.exec(printed)?.[0];
      if (url) resolve({ url, output, stop: () => stop(child) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`${script} exited with ${code} before printing its URL:\n${printed}`)),
    );
  });
}

/**
 * Runs `node <script>` to completion and returns its exit code and output.
 *
 * @example
 * ```ts
 * const { code, output } = await runScript(dir, 'server.mjs', { WEBHOOK_TOKEN: '' });
 * ```
 */
export async function runScript(
  cwd: string,
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // 'close', not 'exit': only then has all output been read.
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
