import type { ChildProcess } from 'node:child_process';
import { spawnCli } from '../cli/run-cli.js';

/** A running `webhook-cms-receiver inspect` child and the page URL it printed. */
export interface RunningInspect {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  stop(): void;
}

/** Starts `inspect --json …` as a user's shell would, and resolves once it printed its URL. */
export async function startInspect(args: string[], env: Record<string, string>, cwd?: string): Promise<RunningInspect> {
  const child = spawnCli(['inspect', ...args, '--json'], env, cwd);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`inspect exited with ${code}: ${output}`)));
  });
  return { url, child, output: () => output, stop: () => void child.kill('SIGTERM') };
}
