import { spawn } from 'node:child_process';

/**
 * Runs a command to its end and collects its output; kills it (and its children) after
 * `timeoutMs` so a hung runtime fails the matrix instead of stalling CI.
 *
 * @example
 * ```js
 * const { code, stdout } = await runToEnd('deno', ['run', 'main.mjs'], { cwd: here });
 * ```
 */
export function runToEnd(command, args, { cwd, env = process.env, timeoutMs = 120_000 }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(child);
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
    child.on('error', (error) => output.stderr.push(`${error.message}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout: output.stdout.join(''), stderr: output.stderr.join('') });
    });
  });
}

/**
 * Starts a long-running process and resolves once a stdout line matches `ready`, with the
 * match and a `stop()` that ends the whole process group. Rejects, with its output, when the
 * process exits or stays silent past `timeoutMs`.
 *
 * @example
 * ```js
 * const server = await startProcess('bun', ['run', 'start'], { cwd, ready: /Listening on (\S+)/ });
 * await server.stop();
 * ```
 */
export function startProcess(command, args, { cwd, env = process.env, ready, timeoutMs = 60_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const output = collect(child);
    const describe = (why) =>
      new Error(`${command} ${args.join(' ')} ${why}\n${output.stdout.join('')}${output.stderr.join('')}`);
    const exited = new Promise((done) => child.on('close', done));
    const stop = async () => {
      child.stdin.end();
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      stop();
      reject(describe(`printed nothing matching ${ready} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (error) => output.stderr.push(`${error.message}\n`));
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(describe(`exited (${code}) before it was ready`));
    });
    child.stdout.on('data', () => {
      const match = output.stdout.join('').match(ready);
      if (!match) return;
      clearTimeout(timer);
      resolve({ match, stop, output: () => output.stdout.join('') + output.stderr.join('') });
    });
  });
}

function collect(child) {
  const output = { stdout: [], stderr: [] };
  child.stdout.setEncoding('utf8').on('data', (chunk) => output.stdout.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => output.stderr.push(chunk));
  return output;
}

function killGroup(child, signal) {
  try {
    // Negative pid: the whole group, so `deno task` / `bun run` wrappers take their child along.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
