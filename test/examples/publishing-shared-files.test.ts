import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each publishing starter stands alone, so each carries its own copy of the store and the
// feeds; the copies must not drift apart, or a fix reaches one starter and not the others.
const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const copies = ['express-publisher/', 'astro-blog/src/lib/', 'nextjs-blog/lib/'];

describe('the publishing starters share one store and one feed module', () => {
  it.each(['site-store.mjs', 'site-feeds.mjs'])('%s is the same file in every starter', (file) => {
    const [first, ...others] = copies.map((dir) => readFileSync(`${examples}${dir}${file}`, 'utf8'));
    for (const other of others) expect(other).toBe(first);
  });

  // The bullmq-worker example writes static pages with the Express starter's page templates.
  it.each(['site-feeds.mjs', 'pages.mjs'])('%s of bullmq-worker is the Express starter’s', (file) => {
    const read = (dir: string) => readFileSync(`${examples}${dir}${file}`, 'utf8');
    expect(read('bullmq-worker/')).toBe(read('express-publisher/'));
  });
});
