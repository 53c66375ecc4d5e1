// Runs the memory measurement in a child process with --expose-gc and a heap of its own.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export async function memorySuite({ count }) {
  const child = new URL('./memory-child.mjs', import.meta.url);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=2048', child.pathname, String(count)],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop());
}
