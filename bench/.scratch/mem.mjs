import { randomUUID } from 'node:crypto';
const heap = () => { for (let i = 0; i < 4; i++) gc(); return process.memoryUsage().heapUsed; };
const N = 1_000_000;
const variant = process.argv[2];
const map = new Map();
var OK = { ok: true };
const ids = []; for (let i = 0; i < N; i++) ids.push(Buffer.from(randomUUID(), 'latin1').toString('latin1'));
const b = heap();
let at = 1_767_225_600_000;
for (let i = 0; i < N; i++) {
  const id = ids[i];
  if (variant === 'keyonly') { map.set(id, 1); continue; }
  const e = { lease: i + 1, expiresAt: at + 60000, written: 0, response: undefined };
  if (variant === 'reput') { map.set(id, e); e.expiresAt = at + 1000; e.response = OK; map.delete(id); map.set(id, e); }
  else if (variant === 'smi') { e.expiresAt = 5; map.set(id, e); }
  else map.set(id, e);
}
console.log(variant, (heap() - b) / N, map.size);
