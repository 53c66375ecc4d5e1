// `node bench/icount-profile.mjs '<run id>' [outDir]`: counts one run of the plan
// (bench/icount/plan.mjs) the way `npm run bench:icount` does, but keeps its callgrind dumps
// (`outDir/run.<n>`, dump 1 is start-up and warm-up, 2 to 4 the windows) so that
// `callgrind_annotate --inclusive=yes outDir/run.2` can say which functions the instructions
// went to. Prints each window's instructions per call.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDumps, runCounted } from './icount/callgrind.mjs';
import { RUNS } from './icount/plan.mjs';
import { buildIfStale } from './lib/build.mjs';

const [id, dir] = process.argv.slice(2);
const run = RUNS.find((r) => r.id === id);
if (!run) throw new Error(`no run "${id}" in bench/icount/plan.mjs; one of:\n${RUNS.map((r) => r.id).join('\n')}`);
buildIfStale();
const out = dir ?? mkdtempSync(join(tmpdir(), 'icount-profile-'));
mkdirSync(out, { recursive: true });
const prefix = join(out, 'run');
if (run.kind === 'micro') {
  const numbers = [run.size, run.warmSmall, run.warmup, run.calls, run.windows, run.chunk].map(String);
  await runCounted(prefix, fileURLToPath(new URL('./icount/micro-child.mjs', import.meta.url)), [
    run.subject,
    ...numbers,
  ]);
} else {
  // After the build: the driver's deliveries import the built package.
  const { runHttp } = await import('./icount/http-driver.mjs');
  await runHttp(prefix, run);
}
const windows = readDumps(prefix).slice(1, 1 + run.windows);
console.log(`${id}: ${windows.map((w) => Math.round(w.ir / run.calls).toLocaleString('en')).join(' / ')} per call`);
console.log(`dumps in ${out} (run.2 … run.${1 + run.windows} are the windows)`);
