import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the current sources of the core and `/postgres` into one ES module in a temp
 * directory, for child processes: they run exactly the code under test, with no build step
 * and no stale `dist`. Neither entry imports a package, so the bundle stands alone.
 */
export async function bundleReceiver(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), 'wcr-postgres-child-')), 'receiver.mjs');
  await build({
    stdin: {
      contents: "export * from './src/index.ts';\nexport * from './src/postgres/index.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}
