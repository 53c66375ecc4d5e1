import { createHmac, createSecretKey } from 'node:crypto';
const TOKEN = 'whk_bench_7f3c2a9e41d04b6f8a15c0e2d9b7a6f1';
const key = createSecretKey(new TextEncoder().encode(TOKEN));
const body = Buffer.alloc(1024, 97); const ts = '1767225600';
const pre = Buffer.from(ts + '.');
let sink;
const variants = {
  str: () => createHmac('sha256', TOKEN).update(`${ts}.`).update(body).digest(),
  key: () => createHmac('sha256', key).update(`${ts}.`).update(body).digest(),
  keyLatin1: () => createHmac('sha256', key).update(`${ts}.`, 'latin1').update(body).digest(),
  keyBufPrefix: () => createHmac('sha256', key).update(pre).update(body).digest(),
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
