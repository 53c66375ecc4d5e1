#!/usr/bin/env node
// Part of `npm run docs`, after typedoc: every exported function and class carries a summary
// and an @example (typedoc itself only checks that something is documented).
import { readFileSync } from 'node:fs';

const KINDS = { 32: 'variable', 64: 'function', 128: 'class', 256: 'interface', 2097152: 'type' };
const REQUIRED = new Set([64, 128]);
const api = JSON.parse(readFileSync(new URL('../docs/api/api.json', import.meta.url), 'utf8'));

const missing = [];
const withoutExample = [];
for (const module of api.children ?? []) {
  for (const item of module.children ?? []) {
    if (!(item.kind in KINDS)) continue;
    const comments = [item.comment, ...(item.signatures ?? []).map((signature) => signature.comment)].filter(Boolean);
    const summary = comments.some((comment) => comment.summary?.some((part) => part.text.trim() !== ''));
    const example = comments.some((comment) => comment.blockTags?.some((tag) => tag.tag === '@example'));
    const name = `${module.name} → ${KINDS[item.kind]} ${item.name}`;
    if (REQUIRED.has(item.kind) && !(summary && example))
      missing.push(`${name}: needs ${summary ? '' : 'a summary and '}an @example`);
    else if (!example) withoutExample.push(name);
  }
}
console.log(`docs: ${withoutExample.length} exported types and constants document themselves without an @example`);
if (missing.length > 0) {
  console.error(`docs: every exported function and class needs TSDoc with an @example:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log('docs: every exported function and class has a summary and an @example');
