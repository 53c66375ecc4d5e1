// `node bench/icount-context.mjs [plain|als]`, run under callgrind (see BENCHMARKS.md, "The
// request's async context"): what the Node adapters' context capture costs per request, apart
// from everything else. Creates runners in batches of 1,000, as requests hold them, and calls
// each once, in windows that alternate with a direct call: one `AsyncResource` and one closure
// (as adapters/node/request-context.ts makes them) against none. Windows are cut by
// os.loadavg() (libuv's uv_loadavg, for `--dump-before=uv_loadavg`). `als`: inside an
// `AsyncLocalStorage.run`, so the store's init hook runs as it does in an app that uses one.
//
//   valgrind --tool=callgrind --dump-before=uv_loadavg --callgrind-out-file=/tmp/ctx \
//     node --predictable --single-threaded --random-seed=42 bench/icount-context.mjs plain
//   grep -h '^totals:' /tmp/ctx.*   # windows 2..7: direct, capture, direct, capture, …

import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { loadavg } from 'node:os';

const BATCH = 1000;
const WINDOW_BATCHES = 100;
let sink = 0;
const continuation = (value) => {
  sink += value;
};
const direct = (run, value) => run(value);
const capture = () => {
  const resource = new AsyncResource('webhook-cms-receiver');
  return (run, value) => resource.runInAsyncScope(run, undefined, value);
};
const held = new Array(BATCH);

function phase(make, batches) {
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < BATCH; i++) held[i] = make();
    for (let i = 0; i < BATCH; i++) held[i](continuation, 1);
  }
}

function main() {
  phase(() => direct, 3 * WINDOW_BATCHES);
  phase(capture, 3 * WINDOW_BATCHES);
  for (let w = 0; w < 3; w++) {
    loadavg();
    phase(() => direct, WINDOW_BATCHES);
    loadavg();
    phase(capture, WINDOW_BATCHES);
  }
  loadavg();
  if (sink === 0) throw new Error('nothing ran');
}

if (process.argv[2] === 'als') new AsyncLocalStorage().run({ request: 1 }, main);
else main();
