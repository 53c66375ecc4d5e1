import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A redis-server of the test's own on 127.0.0.1:`port`, with no persistence, resolved once it
 * accepts connections: for tests that stop Redis and start it again on the same port. The
 * caller stops it (and removes `dir`).
 */
export async function startPrivateRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    // Keeps reading after ready, so redis-server never writes to a closed pipe.
    child.stdout!.on('data', (chunk: Buffer) => {
      log += String(chunk);
      if (log.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited before it was ready:\n${log}`)));
    child.once('error', (error) =>
      reject(
        new Error(
          `cannot start redis-server (${error.message}); install it (apt-get install redis-server), as .ci/run does`,
        ),
      ),
    );
  });
  return child;
}
