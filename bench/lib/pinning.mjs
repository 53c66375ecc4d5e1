// Keeps the server and the load generator off each other's core: the server child is started
// under `taskset` on one core and this process (the load generator) moves to another, so
// neither steals the other's time slices. Falls back to no pinning where taskset or a second
// core is missing, and says so.

import { fork, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const hasTaskset = availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** The cores this process may run on at start (e.g. `0,1`), to come back to afterwards. */
const ORIGINAL = hasTaskset
  ? (spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' }).stdout ?? '').split(':').pop()?.trim()
  : undefined;

/** Moves every thread of this process onto `cores`; true when taskset did it. */
function pinSelf(cores) {
  return spawnSync('taskset', ['-a', '-pc', cores, String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/**
 * Forks `module` pinned to core `serverCore` and moves this process to another core.
 * `pinned` tells whether both moves happened; `release()` kills the child and lets this
 * process run on every core it had again.
 */
export function forkPinned(module, serverCore) {
  const options = { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] };
  if (!hasTaskset || !ORIGINAL) {
    const child = fork(module, [], options);
    return { child, pinned: false, release: () => child.kill() };
  }
  const clientCore = String((serverCore + 1) % availableParallelism());
  const child = fork(module, [], {
    ...options,
    execPath: 'taskset',
    execArgv: ['-c', String(serverCore), process.execPath],
  });
  const pinned = pinSelf(clientCore);
  return {
    child,
    pinned,
    release() {
      child.kill();
      pinSelf(ORIGINAL);
    },
  };
}
