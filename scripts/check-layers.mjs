#!/usr/bin/env node
// Fails when a module imports upward: the layers import one way,
//   foundations (internal, errors, crypto, events, input) → dedup → receiver → adapter kit
//   → entries built on the public API (adapters, stores, testing, cli) → the package index.
// Within a layer, folders may not import each other in a cycle either: each folder has its own rank.
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
  ['src/receiver', 5],
  ['src/adapter-kit', 6],
  ['src/redis', 7],
  ['src/postgres', 7],
  ['src/cloudflare', 7],
  ['src/testing', 7],
  ['adapters', 7],
  ['src/cli', 8],
  ['src/index.ts', 9],
];
// Adapters reach the core only through the package name, as a user's own adapter would.
const PUBLIC_ONLY = ['adapters'];
const ALLOWED_INTERNAL_FOR_PUBLIC = ['src/internal'];

function folderOf(file) {
  const rel = relative(root, file).split('\\').join('/');
  if (rel.startsWith('adapters/')) return rel.split('/').slice(0, 2).join('/');
  if (rel === 'src/index.ts') return rel;
  return rel.split('/').slice(0, 2).join('/');
}

function rankOf(folder) {
  const match = RANKS.find(([prefix]) => folder === prefix || folder.startsWith(`${prefix}/`));
  return match ? match[1] : undefined;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.ts$/.test(name) && !/\.test\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const files = ['src', 'adapters'].flatMap((dir) => {
  try {
    return walk(join(root, dir));
  } catch {
    return [];
  }
});
const problems = [];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const from = folderOf(file);
  const fromRank = rankOf(from);
  const rel = relative(root, file);
  if (fromRank === undefined) {
    problems.push(`${rel}: its folder ${from} has no layer; add it to RANKS in scripts/check-layers.mjs`);
    continue;
  }
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (!spec.startsWith('.')) continue;
    const target = folderOf(resolve(dirname(file), spec));
    if (target === from) continue;
    const targetRank = rankOf(target);
    const publicOnly = PUBLIC_ONLY.some((p) => from === p || from.startsWith(`${p}/`));
    if (publicOnly && !ALLOWED_INTERNAL_FOR_PUBLIC.includes(target)) {
      problems.push(`${rel}: imports ${spec} (${target}); import it from 'webhook-cms-receiver' as a user would`);
    } else if (targetRank === undefined || targetRank >= fromRank) {
      problems.push(`${rel}: imports ${spec}, which is in ${target}, a layer at or above ${from}'s`);
    }
  }
}
if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} upward or sideways import(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-layers: ${files.length} modules import one way`);
