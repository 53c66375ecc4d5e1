import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A starter is copied out of the repository by users: a `file:` or `link:` dependency on the
// package would not install there. Every starter asks for it by a caret range of the version.
const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const starters = readdirSync(examples, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'recipes')
  .map((entry) => entry.name);

describe('every starter in examples/ depends on webhook-cms-receiver by version', () => {
  it.each(starters)('examples/%s', (name) => {
    const manifest = JSON.parse(readFileSync(join(examples, name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(manifest.dependencies?.['webhook-cms-receiver']).toBe(`^${version}`);
  });
});
