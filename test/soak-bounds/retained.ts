// Live heap after a full collection, for the bounds tests: what a structure keeps, not garbage
// not collected yet. Node hides `gc` unless started with --expose-gc; the flag can be set at run
// time and the function read from a fresh context.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of live heap after two full collections (the second frees what finalizers released). */
export function retainedBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Drives `total` distinct keys through `step` (awaited one at a time), and the live heap after
 * the first `warmup` keys and after all of them: a bounded structure is full by the warm-up, so
 * what it keeps after it must not grow with the keys that follow.
 */
export async function growthAfterWarmup(
  options: { total: number; warmup: number },
  step: (i: number) => unknown,
): Promise<{ bytesPerKey: number; growth: number }> {
  let i = 0;
  for (; i < options.warmup; i++) await step(i);
  const before = retainedBytes();
  for (; i < options.total; i++) await step(i);
  const growth = retainedBytes() - before;
  return { growth, bytesPerKey: growth / (options.total - options.warmup) };
}
