#!/usr/bin/env node
// Fails when a module imports upward: the layers import one way,
//   foundations (internal, errors, crypto, events, input) → dedup → receiver → adapter kit
//   → entries built on the public API (adapters, stores, the signer) → diagnose and probe
//   → inspector → the /testing entry → cli → the package index.
// Within a layer, folders may not import each other in a cycle either: each folder has its own rank.
// The receiver's room is split by concept, each subfolder ranked inside the receiver's layer:
//   receiver/tokens → receiver/tenants → receiver (the pipeline core: options, config, hooks,
//   verification, the pipeline) → receiver/kept → receiver/queue-mode → receiver/assembly
//   (createReceiver, handleInput, admit), so tenant mode, kept requests and queue mode stay
//   apart and only the assembly joins them.
// The CLI reaches the four developer-tool rooms only through their doors (ROOM_DOORS).
// Tests follow the test rule (CONTRIBUTING.md): a test beside the code (src/**/x.test.ts) imports
// like the modules of its folder and never test/; a test under test/ imports the package by name
// (or dist/, the built package), test/ files and fixtures, never src/ or adapters/ by path.
// Usage: node scripts/check-layers.mjs [root]   (root defaults to the repository)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

/** Rank of each folder: a module may import only from folders of a lower rank, or its own folder. */
const RANKS = [
  ['src/internal', 0],
  ['src/errors', 1],
  ['src/crypto', 2],
  ['src/input', 3],
  ['src/events', 3],
  ['src/dedup', 4],
  // The delivery ledger's rows, stores and recovery loop: the receiver records into it.
  ['src/ledger', 4.5],
  // The receiver's concepts (see the header); a folder of the receiver imports only those before it.
  ['src/receiver/tokens', 5],
  ['src/receiver/tenants', 5.1],
  ['src/receiver', 5.2],
  ['src/receiver/kept', 5.3],
  ['src/receiver/ledger', 5.35],
  ['src/receiver/queue-mode', 5.4],
  ['src/receiver/assembly', 5.5],
  ['src/adapter-kit', 6],
  // The ledger page renders a ledger for any Fetch host; the adapters' forms of it build on it.
  ['src/ledger-page', 6],
  // The engine-agnostic worker runs the receiver's pipeline; engines (bullmq, pg-boss) build on it.
  ['src/queue', 6],
  ['src/redis', 7],
  ['src/postgres', 7],
  ['src/cloudflare', 7],
  ['src/opentelemetry', 7],
  // The sender room: signDelivery, the payload factories, deliver. Independent of the receiver on purpose.
  ['src/sender', 7],
  ['src/publish', 7],
  ['src/bullmq', 7],
  ['src/pg-boss', 7],
  ['src/dynamodb', 7],
  ['src/sqs', 7],
  ['adapters', 7],
  // Diagnosis signs with the signer to find what the signature covers; the probe sends with it.
  ['src/diagnose', 8],
  ['src/probe', 8],
  // The inspector diagnoses each refusal and writes the diagnosis room's capture line.
  ['src/inspector', 9],
  // The public /testing entry gathers the four rooms, so it sits above all of them.
  ['src/testing', 10],
  ['src/cli', 11],
  ['src/index.ts', 12],
];
/** Files that rank on their own instead of with their folder. */
const OWN_RANK = ['src/index.ts'];
/** Folders whose subfolders rank on their own (`src/receiver/tokens`), files directly inside with the folder. */
const SPLIT_ROOMS = ['src/receiver'];
/** The CLI imports a developer-tool room only through its door: the room's index.ts. */
const ROOM_DOORS = {
  'src/sender': ['src/sender/index.ts'],
  'src/diagnose': ['src/diagnose/index.ts'],
  'src/probe': ['src/probe/index.ts'],
  'src/inspector': ['src/inspector/index.ts'],
};
// Adapters reach the core only through the package name, as a user's own adapter would.
const PUBLIC_ONLY = ['adapters'];
const ALLOWED_INTERNAL_FOR_PUBLIC = ['src/internal'];

const relPath = (file) => relative(root, file).split('\\').join('/');

function folderOf(file) {
  const rel = relPath(file).replace(/\.js$/, '.ts');
  if (OWN_RANK.includes(rel)) return rel;
  const parts = rel.split('/');
  const room = parts.slice(0, 2).join('/');
  return SPLIT_ROOMS.includes(room) && parts.length > 3 ? parts.slice(0, 3).join('/') : room;
}

function rankOf(folder) {
  const exact = RANKS.find(([prefix]) => folder === prefix);
  // A new subfolder of a split room needs a rank of its own: it does not inherit the room's.
  if (!exact && SPLIT_ROOMS.some((room) => folder.startsWith(`${room}/`))) return undefined;
  const match = exact ?? RANKS.find(([prefix]) => folder.startsWith(`${prefix}/`));
  return match ? match[1] : undefined;
}

function walk(dir, keep, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(name)) out.push(path);
  }
  return out;
}

const within = (dir, keep) => {
  try {
    return walk(join(root, dir), keep);
  } catch {
    return [];
  }
};
const isTest = (name) => /\.test\.ts$/.test(name);
const isSource = (name) => /\.ts$/.test(name) && !name.endsWith('.d.ts');
const files = ['src', 'adapters'].flatMap((dir) => within(dir, (name) => isSource(name) && !isTest(name)));
const besideTests = ['src', 'adapters'].flatMap((dir) => within(dir, isTest));
const testTree = within('test', (name) => /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts'));

const problems = [];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const importsOf = (file) =>
  [...readFileSync(file, 'utf8').matchAll(IMPORT)]
    .map((match) => match[1] ?? match[2])
    .filter((s) => s.startsWith('.'));
/** The source file an import names: `./x.js` is written for `./x.ts`. */
const targetFile = (file, spec) => relPath(resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
const roomOf = (path) => Object.keys(ROOM_DOORS).find((room) => path.startsWith(`${room}/`));

for (const file of [...files, ...besideTests]) {
  const from = folderOf(file);
  const fromRank = rankOf(from);
  const rel = relPath(file);
  if (fromRank === undefined) {
    problems.push(`${rel}: its folder ${from} has no layer; add it to RANKS in scripts/check-layers.mjs`);
    continue;
  }
  for (const spec of importsOf(file)) {
    const path = targetFile(file, spec);
    if (path.startsWith('test/')) {
      problems.push(`${rel}: imports ${spec}; a test beside the code never imports test/ (move it under test/)`);
      continue;
    }
    const target = folderOf(resolve(dirname(file), spec));
    if (target === from) continue;
    const targetRank = rankOf(target);
    const publicOnly = PUBLIC_ONLY.some((p) => from === p || from.startsWith(`${p}/`));
    const room = roomOf(path);
    if (publicOnly && !ALLOWED_INTERNAL_FOR_PUBLIC.includes(target)) {
      problems.push(`${rel}: imports ${spec} (${target}); import it from 'webhook-cms-receiver' as a user would`);
    } else if (targetRank === undefined || targetRank >= fromRank) {
      problems.push(`${rel}: imports ${spec}, which is in ${target}, a layer at or above ${from}'s`);
    } else if (from === 'src/cli' && room && !ROOM_DOORS[room].includes(path)) {
      problems.push(`${rel}: imports ${spec}; the CLI reaches ${room} only through ${ROOM_DOORS[room].join(' or ')}`);
    }
  }
}

// Within a folder too, modules import one way: a circle (type imports included) means a shared
// type or helper belongs in a module of its own below the others.
const graph = new Map(files.map((file) => [relPath(file), importsOf(file).map((spec) => targetFile(file, spec))]));
const state = new Map();
function visit(node, path) {
  state.set(node, 'open');
  for (const next of graph.get(node) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === 'open') {
      const circle = [...path.slice(path.indexOf(next)), next];
      problems.push(`${circle[0]}: import circle ${circle.join(' → ')}; move what they share into a module below them`);
    } else if (!state.has(next)) visit(next, [...path, next]);
  }
  state.set(node, 'done');
}
for (const node of graph.keys()) if (!state.has(node)) visit(node, [node]);

// Tests under test/ use the package as a user would: by name (vitest aliases and tsconfig paths
// map the names to the sources) or the built dist/; never a source file by its path.
for (const file of testTree) {
  const rel = relPath(file);
  for (const spec of importsOf(file)) {
    const path = targetFile(file, spec);
    if (path.startsWith('src/') || path.startsWith('adapters/'))
      problems.push(`${rel}: imports ${spec}; a test under test/ imports the package by name, not ${path}`);
  }
}

if (problems.length > 0) {
  console.error(
    `check-layers: ${problems.length} upward, sideways or test-rule import(s):\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(
  `check-layers: ${files.length} modules import one way; ${besideTests.length + testTree.length} test files keep the test rule`,
);
