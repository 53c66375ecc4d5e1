import { isUtf8, Buffer } from 'node:buffer';
import { articleBody } from '../lib/deliveries.mjs';
for (const size of [1024, 16384, 262144]) {
const body = Buffer.from(articleBody(size));
const u8 = new Uint8Array(body);
const td = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const slice = Buffer.prototype.utf8Slice;
const toStr = Buffer.prototype.toString;
let sink;
const variants = {
  fatal: () => td.decode(body),
  fatalU8: () => td.decode(u8),
  isUtf8ToString: () => isUtf8(body) ? body.toString() : undefined,
  isUtf8SliceU8: () => isUtf8(u8) ? slice.call(u8, 0, u8.length) : undefined,
  toStringOnly: () => body.toString(),
};
const n = Math.round(100000 * 1024 / size);
for (let rep = 0; rep < 4; rep++) {
  const out = [];
  for (const [name, fn] of Object.entries(variants)) {
    for (let i = 0; i < n / 5; i++) sink = fn();
    const t = performance.now(); for (let i = 0; i < n; i++) sink = fn();
    out.push(`${name}=${((performance.now() - t) * 1e6 / n).toFixed(0)}`);
  }
  console.log(size, out.join(' '));
}
}
