// Builds the package with tsup when dist/ is older than its sources: the benches measure the
// built package, exactly what users install.

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Runs `npx tsup --silent` unless dist/index.js is newer than src/, adapters/ and tsup.config.ts. */
export function buildIfStale() {
  let built = 0;
  try {
    built = statSync(join(root, 'dist/index.js')).mtimeMs;
  } catch {}
  const sources = Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'adapters')),
    newest(join(root, 'tsup.config.ts')),
  );
  if (built > sources) return;
  console.log('dist/ is older than the sources: building with tsup first.');
  const result = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('tsup failed; the bench measures the built package, so it stops here.');
}
