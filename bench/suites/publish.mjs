// recordSlug per delivery in a history of 10,000 and 100,000 articles: a rename of an existing
// article (its old slug becomes a redirect) and a new article, alternating, timed in batches.
// The cost must not grow with the history (it copied the whole history on every delivery:
// 11 ms at 10,000 articles, 95 ms at 50,000). `node bench/suites/publish.mjs` runs it alone.
import { fileURLToPath } from 'node:url';
import { emptySlugHistory, recordSlug } from 'webhook-cms-receiver/publish';
import { median } from '../lib/measure.mjs';

const sync = (id, slug) => ({
  type: 'article.sync',
  article: { id, slug, status: 'published', published_at: '2026-01-01T00:00:00Z', scheduled_at: null },
});

function filled(size) {
  const history = emptySlugHistory();
  for (let i = 0; i < size; i++) recordSlug(history, sync(`id-${i}`, `slug-${i}`));
  return history;
}

/**
 * Microseconds per recordSlug call (median over rounds) at each history size.
 *
 * @example
 * const rows = await publishSuite({ sizes: [10_000, 100_000], rounds: 7, perRound: 2_000 });
 */
export async function publishSuite({ sizes = [10_000, 100_000], rounds = 7, perRound = 2_000 } = {}) {
  const rows = [];
  for (const size of sizes) {
    const history = filled(size);
    let next = 0;
    const samples = [];
    for (let round = 0; round < rounds; round++) {
      const started = process.hrtime.bigint();
      for (let k = 0; k < perRound; k++, next++) {
        const id = next % 2 === 0 ? `id-${next % size}` : `new-${next}`;
        recordSlug(history, sync(id, `renamed-${next}`));
      }
      samples.push(Number(process.hrtime.bigint() - started) / 1000 / perRound);
    }
    rows.push({ size, microseconds: median(samples) });
  }
  return rows;
}

/** The rows as a Markdown table. */
export function publishTable(rows) {
  const lines = ['| articles in the history | recordSlug per delivery |', '| ---: | ---: |'];
  for (const { size, microseconds } of rows)
    lines.push(`| ${size.toLocaleString('en-US')} | ${microseconds.toFixed(2)} µs |`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(publishTable(await publishSuite()));
