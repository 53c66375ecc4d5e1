import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs module of the runtime matrix, without types
import { node22 } from '../runtimes/runtimes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const INSTALL = `node -e "import('./test/runtimes/install.mjs').then((m) => m.ensureRuntimesInstalled())"`;

/** True on Node 22.12 and later, which pg-boss 11 and 12 need (`engines`). */
export function onNode22(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/**
 * On an older Node, the test file that called this runs again under the Node 22 of the runtime
 * matrix (test/runtimes), in a vitest of its own with the same config, and must pass there.
 * Skipped, saying how to install it, when that Node is not installed.
 *
 * @example
 * ```ts
 * if (onNode22()) await pgBossScenarios(12);
 * else rerunOnNode22('pg-boss 12', import.meta.url, 'vitest.config.ts');
 * ```
 */
export function rerunOnNode22(label: string, testFile: string, config: string): void {
  const file = relative(root, fileURLToPath(testFile));
  const name = `${label} on the Node 22 of the runtime matrix`;
  if (!existsSync(node22)) {
    describe.skip(`${name} (skipped: the matrix's Node 22 is not installed: ${INSTALL})`, () => {
      it('passes', () => {});
    });
    return;
  }
  describe(name, () => {
    it(`passes ${file} under Node 22`, async () => {
      const args = [fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))];
      const run = spawn(node22, [...args, 'run', '--config', config, file], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      run.stdout.on('data', (chunk) => void (output += chunk));
      run.stderr.on('data', (chunk) => void (output += chunk));
      const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
      output = stripVTControlCharacters(output);
      // The child's own summary says what failed; `passed` with no `failed` proves it ran at all.
      expect({ code, tail: output.slice(-4000) }).toMatchObject({ code: 0 });
      expect(output).toMatch(/Tests\s+\d+ passed/);
      expect(output).not.toMatch(/skipped:/);
    }, 180_000);
  });
}
