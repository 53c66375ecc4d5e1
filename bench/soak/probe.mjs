// The child side of the sampling: every `intervalMs` a full GC (the children run with
// --expose-gc, so heap figures are live objects, not garbage not yet collected), then RSS, heap
// and the event-loop delay since the last sample, sent to the driver over IPC. On
// `{ type: 'handles' }` the child answers with the resources keeping its event loop alive; on
// `{ type: 'snapshot', dir, tag }` it writes a heap snapshot there (`--heap-snapshots`).

import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';

const MS = 1e6;

/** Starts sampling; `name` is the process's slot (receiver-0, worker-1, …). */
export function startProbe(name, { intervalMs }) {
  if (!process.send) return;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    globalThis.gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    const eld = { p50: delay.percentile(50) / MS, p99: delay.percentile(99) / MS, max: delay.max / MS };
    delay.reset();
    process.send({ type: 'sample', name, pid: process.pid, t: Date.now(), rss, heapUsed, external, eld });
  }, intervalMs);
  timer.unref();
  process.on('message', (message) => {
    if (message?.type === 'snapshot') {
      globalThis.gc?.();
      writeHeapSnapshot(join(message.dir, `${name}-${process.pid}-${message.tag}.heapsnapshot`));
      return;
    }
    if (message?.type !== 'handles') return;
    const resources = {};
    for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
    process.send({ type: 'handles', name, resources });
  });
}

/** A logger that hands each line to the driver, which counts them (no token is ever logged). */
export function ipcLogger(name) {
  const send = (level) => (message, fields) => {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    const extra = typeof fields === 'string' ? fields : '';
    process.send?.({ type: 'log', name, level, message: `${text} ${extra}`.trim().slice(0, 300) });
  };
  return { warn: send('warn'), error: send('error') };
}
