// A docs code block run in a child of its own, as test/docs/run-block.mjs runs it: shared by
// code-blocks.test.ts (every block) and the tests that check what one block does.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const here = fileURLToPath(new URL('./', import.meta.url));

/** A child's exit, with what it printed. */
export function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the stdout lines up to `DONE`, or rejects with stderr when the child exits first. */
export function done(child: ChildProcess, exit: Promise<{ code: number | null; stderr: string }>): Promise<string[]> {
  let text = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      text += chunk;
      if (/^DONE$/m.test(text)) resolve(text.split('\n'));
    });
    void exit.then(({ code, stderr }) =>
      reject(new Error(`the block exited with ${code} before it finished:\n${stderr}`)),
    );
  });
}

/**
 * Starts a block that serves (the quick start, say) under run-block.mjs, in `scratch`, and
 * resolves with the ports it listens on and a stop function.
 */
export async function serveBlock(
  block: { code: string; lang: string },
  options: { scratch: string; name: string; env: NodeJS.ProcessEnv },
): Promise<{ ports: number[]; stop: () => Promise<unknown> }> {
  const { code } = await transform(block.code, { loader: block.lang.startsWith('t') ? 'ts' : 'js', format: 'esm' });
  const file = join(options.scratch, `${options.name}.mjs`);
  writeFileSync(file, code);
  const child = spawn(process.execPath, [join(here, 'run-block.mjs'), file], {
    cwd: options.scratch,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = exited(child);
  const stop = () => {
    child.kill();
    return exit;
  };
  try {
    const lines = await done(child, exit);
    const ports = lines.flatMap((line) => /^LISTENING (\d+)$/.exec(line)?.[1] ?? []).map(Number);
    return { ports, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
