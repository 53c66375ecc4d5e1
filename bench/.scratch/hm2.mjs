import { createHmac, createSecretKey, hash, timingSafeEqual } from 'node:crypto';
const TOKEN = 'whk_bench_7f3c2a9e41d04b6f8a15c0e2d9b7a6f1';
const key = createSecretKey(new TextEncoder().encode(TOKEN));
const body = Buffer.alloc(1024, 97); const ts = '1767225600';
const kb = Buffer.alloc(64); kb.write(TOKEN);
const ipad = Buffer.from(kb.map(b => b ^ 0x36)), opad = Buffer.from(kb.map(b => b ^ 0x5c));
const outer = Buffer.alloc(96); opad.copy(outer);
let scratch = Buffer.alloc(4096);
function manual(prefix, body) {
  const len = 64 + prefix.length + body.length;
  if (scratch.length < len) scratch = Buffer.alloc(len);
  ipad.copy(scratch, 0);
  scratch.latin1Write(prefix, 64);
  scratch.set(body, 64 + prefix.length);
  const inner = hash('sha256', scratch.subarray(0, len), 'buffer');
  outer.set(inner, 64);
  return hash('sha256', outer, 'buffer');
}
console.log(manual(ts + '.', body).equals(createHmac('sha256', key).update(ts + '.').update(body).digest()));
let sink;
const variants = {
  key: () => createHmac('sha256', key).update(`${ts}.`).update(body).digest(),
  manual: () => manual(`${ts}.`, body),
};
for (let rep = 0; rep < 5; rep++) {
  const out = [];
  for (const [name, fn] of Object.entries(variants)) {
    for (let i = 0; i < 20000; i++) sink = fn();
    const t = performance.now(); for (let i = 0; i < 100000; i++) sink = fn();
    out.push(`${name}=${((performance.now() - t) * 10).toFixed(0)}ns`);
  }
  console.log(out.join(' '));
}
