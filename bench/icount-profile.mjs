// `node bench/icount-profile.mjs '<run id>' [outDir] [--names]`: counts one run of the plan
// (bench/icount/plan.mjs) the way `npm run bench:icount` does, but keeps its callgrind dumps
// (`outDir/run.<n>`, dump 1 is start-up and warm-up, 2 to 4 the windows) so that
// `callgrind_annotate --inclusive=yes outDir/run.2` can say which functions the instructions
// went to. Prints each window's instructions per call. `--names` also names the JavaScript
// (bench/icount/jit-names.mjs), which is otherwise an address: `callgrind_annotate
// --tree=caller outDir/run.3` then says, say, which of our functions call
// `Builtins_LoadIC_Megamorphic`. The map it needs costs a little, so its counts are not the
// plan's to the instruction.

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDumps, runCounted } from './icount/callgrind.mjs';
import { JIT_MAP_FLAG, nameJitCode } from './icount/jit-names.mjs';
import { RUNS } from './icount/plan.mjs';
import { buildIfStale } from './lib/build.mjs';

const names = process.argv.includes('--names');
const [id, dir] = process.argv.slice(2).filter((arg) => arg !== '--names');
const run = RUNS.find((r) => r.id === id);
if (!run) throw new Error(`no run "${id}" in bench/icount/plan.mjs; one of:\n${RUNS.map((r) => r.id).join('\n')}`);
buildIfStale();
const out = dir ?? mkdtempSync(join(tmpdir(), 'icount-profile-'));
mkdirSync(out, { recursive: true });
const prefix = join(out, 'run');
if (run.kind === 'micro') {
  const numbers = [run.size, run.warmSmall, run.warmup, run.calls, run.windows, run.chunk].map(String);
  const script = fileURLToPath(new URL('./icount/micro-child.mjs', import.meta.url));
  await runCounted(prefix, script, [run.subject, ...numbers], names ? [JIT_MAP_FLAG] : []);
} else {
  // After the build: the driver's deliveries import the built package.
  const { runHttp } = await import('./icount/http-driver.mjs');
  await runHttp(prefix, names ? { ...run, nodeFlags: [...(run.nodeFlags ?? []), JIT_MAP_FLAG] } : run);
}
if (names) {
  const dumps = readdirSync(out).filter((name) => /^run\.\d+$/.test(name));
  const pids = nameJitCode(dumps.map((name) => join(out, name)));
  // The flag also has V8 write a log of its own into the working directory.
  for (const name of readdirSync('.')) {
    if (pids.some((pid) => name.endsWith(`-${pid}-v8.log`) && name.startsWith('isolate-'))) rmSync(name);
  }
  console.log(`named the JavaScript of process(es) ${pids.join(', ') || '(none: no map found)'}`);
}
const windows = readDumps(prefix).slice(1, 1 + run.windows);
console.log(`${id}: ${windows.map((w) => Math.round(w.ir / run.calls).toLocaleString('en')).join(' / ')} per call`);
console.log(`dumps in ${out} (run.2 … run.${1 + run.windows} are the windows)`);
