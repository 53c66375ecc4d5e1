import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs module of the runtime matrix, without types
import { linkPackageInto } from '../runtimes/install.mjs';
import { vectors } from '../helpers/vectors.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bun = `${root}test/runtimes/node_modules/.bin/bun`;
// Bun comes with the runtime matrix (test/runtimes/install.mjs); Elysia with the recipes'
// frameworks (`npm install --prefix examples/recipes --no-save`), which .ci/run installs before the tests.
const missing = [
  existsSync(bun)
    ? ''
    : 'bun: node -e "import(\'./test/runtimes/install.mjs\').then((m) => m.ensureRuntimesInstalled())"',
  existsSync(`${root}examples/recipes/node_modules/elysia`)
    ? ''
    : 'elysia: npm install --prefix examples/recipes --no-save',
].filter(Boolean);
if (missing.length > 0) console.warn(`skipping the Elysia recipe on Bun; to run it, install ${missing.join(' and ')}`);

describe.skipIf(missing.length > 0)(
  `examples/recipes/elysia on Bun${missing.length ? ' (skipped: see the warning above)' : ''}`,
  () => {
    it('serves the shared signed vectors as the contract says', async () => {
      linkPackageInto(`${root}examples/recipes`); // the recipe imports the package by name
      const child = spawn(bun, ['test', './test/recipes/elysia-vectors.bun.mjs'], {
        cwd: root,
        env: { ...process.env, WEBHOOK_TOKEN: vectors[0]!.tokens[0] },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk));
      const [code] = (await once(child, 'close')) as [number];
      const single = vectors.filter((vector) => vector.tokens.length === 1).length;
      expect(code, output).toBe(0);
      expect(output).toMatch(new RegExp(`\\b${single + 2} pass\\b`));
      expect(output).toMatch(/\b0 fail\b/);
    }, 60_000);
  },
);
