// What grew between two heap snapshots of one process (`npm run soak -- --heap-snapshots …`):
// live objects grouped by kind (an object by its constructor, a string, compiled code, a closure
// by its function's name), the groups that grew most first, in count and in bytes.
//
//   node bench/soak/heap-diff.mjs early.heapsnapshot late.heapsnapshot [--top 25]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// Types whose node name is their content (a string's text, a number): grouped by type alone.
const BY_TYPE_ONLY = new Set(['string', 'concatenated string', 'sliced string', 'number', 'bigint', 'regexp']);

/** Group → { count, bytes } over every node of the snapshot. */
export function groups(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const result = new Map();
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const key = BY_TYPE_ONLY.has(type) ? `(${type})` : `${type}: ${strings[nodes[i + nameAt]].slice(0, 60)}`;
    const group = result.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += nodes[i + sizeAt];
    result.set(key, group);
  }
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  if (positionals.length !== 2) {
    console.error('usage: node bench/soak/heap-diff.mjs early.heapsnapshot late.heapsnapshot [--top N]');
    process.exit(2);
  }
  const [before, after] = positionals.map(groups);
  const total = (map) => [...map.values()].reduce((sum, g) => sum + g.bytes, 0);
  const rows = [...new Set([...before.keys(), ...after.keys()])].map((key) => {
    const a = before.get(key) ?? { count: 0, bytes: 0 };
    const b = after.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: b.count - a.count, bytes: b.bytes - a.bytes };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  const kib = (n) => (n / 1024).toFixed(1);
  console.log(`heap: ${kib(total(before))} KiB → ${kib(total(after))} KiB (${kib(total(after) - total(before))} KiB)`);
  console.log('KiB\tcount\tgroup');
  for (const row of rows.slice(0, Number(values.top))) console.log(`${kib(row.bytes)}\t${row.count}\t${row.key}`);
  console.log('… shrank most:');
  for (const row of rows.slice(-5).reverse()) console.log(`${kib(row.bytes)}\t${row.count}\t${row.key}`);
}
