// Preloaded (`--import`) into the servers of rss-compare.mjs: every 5 s a full GC, then the
// process's memory figures to the driver over IPC.

setInterval(() => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.send?.({ type: 'mem', t: Date.now(), rss: m.rss, heap: m.heapUsed, external: m.external });
}, 5_000).unref();
