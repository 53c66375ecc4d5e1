#!/usr/bin/env node
// Adapters translate, never decide: each adapter's own code stays small. Counts the lines of
// every file under adapters/<name>/ that are code: no imports or re-exports, no comments,
// no type declarations (interfaces, type aliases), no blank lines. Fails past the budget.
// Usage: node scripts/check-adapter-size.mjs   (part of npm run lint)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BUDGET = 40;
// Platforms whose event shapes need more translating (issue 21): h3 serves h3 1 and 2 on Node,
// mock and Web requests; Lambda three event shapes.
const LARGER = { h3: 60, lambda: 60 };
// The Node part of the adapter kit: how every Node host's request is read and its socket
// closed, shared by the Express, Fastify, Koa, h3, Hono and Fetch adapters. Not an adapter's own code.
const KIT = new Set(['node/node-io.ts', 'node/connection.ts']);
// Not the webhook adapter's code either: the ledger page's Node form (issue 48) turns a Node
// request into the Fetch one the core's page reads and writes its Response back; it decides nothing.
KIT.add('node/ledger-page.ts');

const root = new URL('../adapters/', import.meta.url).pathname;
let failed = false;
for (const name of readdirSync(root).sort()) {
  const dir = join(root, name);
  const files = readdirSync(dir).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !KIT.has(`${name}/${file}`),
  );
  const lines = files.reduce((sum, file) => sum + codeLines(readFileSync(join(dir, file), 'utf8')), 0);
  const budget = LARGER[name] ?? BUDGET;
  if (lines > budget) failed = true;
  console.log(
    `${(lines <= budget ? 'ok' : 'FAIL').padEnd(4)} adapters/${name}: ${lines} lines of code (budget ${budget})`,
  );
}
process.exitCode = failed ? 1 : 0;

/** Lines that are code, skipping imports, comments, blank lines and type declarations. */
function codeLines(source) {
  let count = 0;
  let skipping = null; // 'comment' | 'import' | 'type'
  let depth = 0;
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (skipping === 'comment') {
      if (line.includes('*/')) skipping = null;
      continue;
    }
    if (skipping === 'import') {
      if (/;\s*$/.test(line)) skipping = null;
      continue;
    }
    if (skipping === 'type') {
      depth += count_(line, '{') - count_(line, '}');
      if (depth <= 0 && (/[;}]\s*$/.test(line) || line === '')) skipping = null;
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) skipping = 'comment';
      continue;
    }
    if (/^(import|export \{|export \*|export type \{)/.test(line)) {
      if (!/;\s*$/.test(line)) skipping = 'import';
      continue;
    }
    if (/^(export )?(interface|type) |^declare module /.test(line)) {
      depth = count_(line, '{') - count_(line, '}');
      if (!(depth <= 0 && /[;}]\s*$/.test(line))) skipping = 'type';
      continue;
    }
    count++;
  }
  return count;
}

function count_(text, char) {
  return text.split(char).length - 1;
}
