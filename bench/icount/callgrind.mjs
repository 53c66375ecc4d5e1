// Runs one node process under valgrind's callgrind the way issue 37 found counts repeat, and
// reads back each counting window: its total instructions and those spent in SHA-256's block
// function (which under valgrind runs AVX2 code, not SHA-NI, so it is reported apart).

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8's compile and tier-up entry points, none of which calls another: callgrind toggles
 * collection on each entry and exit, so a nested pair would switch it back on. Collection
 * starts on, and is off inside these, so a window never counts compiling the code it runs.
 */
const TOGGLED = [
  'v8::internal::Runtime_CompileLazy*',
  'v8::internal::Runtime_CompileBaseline*',
  'v8::internal::Runtime_InstallBaselineCode*',
  'v8::internal::Runtime_CompileOptimized*',
  'v8::internal::Runtime_HealOptimizedCodeSlot*',
  'v8::internal::Runtime_BytecodeBudgetInterrupt*',
];

/** Deterministic V8: no concurrent compiling or marking, fixed GC schedule and hash seeds. */
export const NODE_FLAGS = [
  '--predictable',
  '--predictable-gc-schedule',
  '--random-seed=42',
  '--no-incremental-marking',
];

/** valgrind's arguments for one run writing `${outPrefix}.<n>` per window, with extra Node flags. */
export function valgrindArgs(outPrefix, nodeFlags = []) {
  return [
    '--tool=callgrind',
    '--dump-before=uv_loadavg',
    ...TOGGLED.map((fn) => `--toggle-collect=${fn}`),
    // After the toggles: each --toggle-collect sets collection off at start again.
    '--collect-atstart=yes',
    `--callgrind-out-file=${outPrefix}`,
    '--log-file=/dev/null',
    process.execPath,
    ...NODE_FLAGS,
    ...nodeFlags,
  ];
}

/** Runs `script args` under callgrind to the end; throws with its stderr when it fails. */
export async function runCounted(outPrefix, script, args, nodeFlags = []) {
  const child = spawn('valgrind', [...valgrindArgs(outPrefix, nodeFlags), script, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} under callgrind exited ${code}:\n${stderr}`);
}

const SHA256 = /sha256_block/;

/**
 * Every dump of one run, in order: { ir, sha } (all instructions, and the self cost of
 * SHA-256's block functions). Dump 1 is start-up and warm-up; the last is what ran after the
 * last mark.
 */
export function readDumps(outPrefix) {
  const slash = outPrefix.lastIndexOf('/');
  const dir = outPrefix.slice(0, slash);
  const base = outPrefix.slice(slash + 1);
  return readdirSync(dir)
    .filter((name) => name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1)))
    .map((name) => [Number(name.slice(base.length + 1)), join(dir, name)])
    .sort((a, b) => a[0] - b[0])
    .map(([, path]) => parseDump(readFileSync(path, 'utf8')));
}

/**
 * Total Ir, SHA-256's self Ir, and every function's self Ir from one callgrind dump. Names are
 * compressed (`fn=(id) name` or `cfn=(id) name` the first time, `(id)` after); the cost line
 * after `calls=` is a callee's inclusive cost, not the caller's own.
 */
export function parseDump(text) {
  const names = new Map();
  const self = new Map();
  let total = 0;
  let current = '';
  let skipNext = false;
  const nameOf = (rest) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(rest);
    if (!match) return rest;
    if (match[2] !== undefined) names.set(match[1], match[2]);
    return names.get(match[1]) ?? rest;
  };
  for (const line of text.split('\n')) {
    const first = line.charCodeAt(0);
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      if (skipNext) skipNext = false;
      else {
        const ir = Number(line.split(' ')[1] ?? 0);
        self.set(current, (self.get(current) ?? 0) + ir);
      }
    } else if (line.startsWith('fn=')) current = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('calls=')) skipNext = true;
    else if (line.startsWith('totals:')) total = Number(line.slice(7).trim().split(' ')[0]);
  }
  let sha = 0;
  for (const [name, ir] of self) if (SHA256.test(name)) sha += ir;
  return { ir: total, sha, self };
}
