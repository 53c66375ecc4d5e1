import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the current sources of the core, `/dynamodb` and the `node:http` adapter, with the
 * AWS SDK, into one CommonJS file in a temp directory, for child processes: they run exactly
 * the code under test, with no build step and no stale `dist`, from anywhere.
 */
export async function bundleDynamoDbReceiver(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), 'wcr-dynamodb-child-')), 'receiver.cjs');
  await build({
    stdin: {
      contents: [
        "export * from './src/index.ts';",
        "export * from './src/dynamodb/index.ts';",
        "export { webhookHandler } from './adapters/node/index.ts';",
        "export { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    tsconfig: join(root, 'tsconfig.json'),
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}
