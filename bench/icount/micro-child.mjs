// Child of bench/icount.mjs, run under callgrind: `node micro-child.mjs <subject> <size>
// <warmSmall> <warmup> <calls> <windows> <chunk>`. Builds and signs every input first, warms
// the subject up (`warmSmall` calls at 1 KiB, then `warmup` at the size: V8 tiers up per call,
// not per byte, so large bodies need not pay for it), then runs `windows` windows of `calls`
// calls, each ended by os.loadavg(): libuv's uv_loadavg, which nothing else here calls, so
// `--dump-before=uv_loadavg` cuts a dump exactly there.

import { loadavg } from 'node:os';
import { SUBJECTS } from './subjects.mjs';

const [name, ...numbers] = process.argv.slice(2);
const [size, warmSmall, warmup, calls, windows, chunk] = numbers.map(Number);
const subject = SUBJECTS[name];
if (!subject) throw new Error(`no icount subject named ${JSON.stringify(name)}`);
if (warmSmall % 50 || warmup % chunk || calls % chunk) throw new Error('warm-ups and windows must be whole chunks');
const fn = subject.make();
const small = warmSmall > 0 ? subject.inputs(1024, warmSmall) : [];
const inputs = subject.inputs(size, 1 + warmup + calls * windows);
let sink;

const first = await fn(inputs[0]);
const accepted = first?.type ?? first?.event ?? (first?.status === 200 ? 'article.sync' : undefined);
if (subject.refuses ? first?.status !== 401 : accepted !== 'article.sync')
  throw new Error(`${name} did not ${subject.refuses ? 'refuse' : 'accept'} the bench delivery`);

// Calls run in chunks through one small function that the warm-up calls often enough to be
// optimised whole: one long loop would tier up by on-stack replacement mid-window.
async function chunkAsync(from, list, count) {
  for (let i = from; i < from + count; i++) sink = await fn(list[i]);
}
function chunkSync(from, list, count) {
  for (let i = from; i < from + count; i++) sink = fn(list[i]);
}
async function run(list, start, count, step) {
  for (let i = start; i < start + count; i += step) {
    if (subject.async) await chunkAsync(i, list, step);
    else chunkSync(i, list, step);
  }
}

await run(small, 0, warmSmall, 50);
await run(inputs, 1, warmup, chunk);
loadavg();
for (let w = 0, next = 1 + warmup; w < windows; w++, next += calls) {
  await run(inputs, next, calls, chunk);
  loadavg();
}
if (sink === undefined) throw new Error('nothing ran');
