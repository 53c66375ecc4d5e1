import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** The built CLI: `npm run build` makes it, and CI builds before it tests. */
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI as a child process, as a user's shell would. */
export function spawnCli(args: string[], env: Record<string, string> = {}, cwd?: string): ChildProcess {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run \`npm run build\` before these tests.`);
  const { WEBHOOK_TOKEN: _ignored, ...inherited } = process.env;
  return spawn(process.execPath, [cliPath, ...args], {
    env: { ...inherited, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs the CLI to completion. Every run also checks the rule that matters most here: the
 * token, whether passed by flag or environment, appears in neither stdout nor stderr.
 */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; secret?: string; cwd?: string } = {},
): Promise<CliRun> {
  const child = spawnCli(args, options.env, options.cwd);
  const run = await finished(child);
  if (options.secret) {
    expect(run.stdout).not.toContain(options.secret);
    expect(run.stderr).not.toContain(options.secret);
  }
  return run;
}

export function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
