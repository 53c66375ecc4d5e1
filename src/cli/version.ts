import { readFileSync } from 'node:fs';

/**
 * The package's version, read from its package.json: the bundle sits in `dist/`, the sources
 * in `src/cli/`, so the nearest package.json named webhook-cms-receiver above this file is ours.
 */
export function packageVersion(): string {
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 4; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'webhook-cms-receiver' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: look one folder up
    }
    dir = new URL('..', dir);
  }
  return 'unknown';
}
