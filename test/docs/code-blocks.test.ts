import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { allBlocks, RUNNABLE } from '../../scripts/doc-blocks.mjs';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { done, exited } from './block-process.js';

// Every ```ts and ```js block of the README and the guides that is not marked a fragment
// (scripts/check-readme.mjs fails on an unmarked block of another language) runs here as
// written, against the BUILT package (npm test builds first), in a child process of its own:
// test/docs/run-block.mjs runs it after test/docs/prelude.mjs (savePost, db, the quick start's
// receiver and handlers); a block that starts a server is then sent a signed test delivery
// at /webhook, one that builds its own receiver has it handle one (through the Redis or
// Postgres it set up); a block written as a vitest test runs under vitest.
const root = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));
const TOKEN = 'docs-token';
const blocks = allBlocks(root).filter((block) => RUNNABLE[block.lang] && block.fragment === undefined);
mkdirSync(join(root, '.scratch'), { recursive: true });
const scratch = join(root, '.scratch', `docs-${process.pid}`);
mkdirSync(scratch, { recursive: true });

let postgres: StartedPostgres | undefined;
beforeAll(async () => {
  if (blocks.some((block) => block.code.includes('DATABASE_URL'))) postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WEBHOOK_TOKEN: TOKEN,
    ...(postgres?.url ? { DATABASE_URL: postgres.url } : {}),
    // The receiver's refusal and fault lines stay out of the run's output.
    NODE_NO_WARNINGS: '1',
  };
}

describe('the docs code blocks run as written', () => {
  it('finds blocks to run', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((block) => [`${block.doc}:${block.line - 1}`, block] as const))('%s', async (_where, block) => {
    const name = `${block.doc.replace(/\.md$/, '').replace('/', '-')}-${block.line}`;
    const { code } = await transform(block.code, { loader: block.lang.startsWith('t') ? 'ts' : 'js', format: 'esm' });
    if (/from ['"]vitest['"]/.test(block.code)) {
      const file = join(scratch, `${name}.test.mjs`);
      writeFileSync(file, code);
      const config = join(scratch, `${name}.config.mjs`);
      writeFileSync(
        config,
        `export default { test: { include: [${JSON.stringify(file)}], setupFiles: [${JSON.stringify(join(here, 'prelude.mjs'))}] } };\n`,
      );
      const child = spawn(
        process.execPath,
        [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config, '--root', scratch],
        {
          cwd: scratch,
          env: env(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const result = await exited(child);
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      return;
    }
    const file = join(scratch, `${name}.mjs`);
    // The one line added to a block: its own receiver, exported for run-block.mjs to try.
    const own = /^(?:const|let|var) receiver\b/m.test(code) && !/export\s*\{[^}]*\breceiver\b/.test(code);
    writeFileSync(file, own ? `${code}\nexport { receiver };\n` : code);
    const child = spawn(process.execPath, [join(here, 'run-block.mjs'), file], {
      cwd: scratch,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = exited(child);
    try {
      const lines = await done(child, exit);
      if (own) expect(lines).toContain('HANDLED 200');
      for (const line of lines) {
        const port = /^LISTENING (\d+)$/.exec(line)?.[1];
        if (!port) continue;
        const { headers, body } = signDelivery({ token: TOKEN, payload: testPayload() });
        const answer = await fetch(`http://127.0.0.1:${port}/webhook`, { method: 'POST', headers, body });
        expect(answer.status, await answer.text()).toBe(200);
      }
    } finally {
      child.kill();
      await exit;
    }
  });
});
