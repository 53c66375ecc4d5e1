import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const counts = new Map(); for (const s of p.samples) counts.set(s, (counts.get(s) || 0) + 1);
const incl = new Map(); let total = 0;
for (const [id, c] of counts) { total += c; const seen = new Set(); for (let x = id; x !== undefined; x = parent.get(x)) { const n = byId.get(x); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; if (seen.has(k)) continue; seen.add(k); incl.set(k, (incl.get(k) || 0) + c); } }
for (const [k, c] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((100 * c / total).toFixed(1).padStart(5), k);
