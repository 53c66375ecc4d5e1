import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { articleBody, signedDelivery, TOKEN } from '../lib/deliveries.mjs';
const size = +process.argv[2] || 1024;
const d = signedDelivery(articleBody(size));
const body = d.body;
const td = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const tdl = new TextDecoder('utf-8', { ignoreBOM: true });
const key = createSecretKey(Buffer.from(TOKEN));
const enc = new TextEncoder();
let sink;
function bench(name, fn, n = 200000 * 1024 / size) {
  for (let i = 0; i < n / 10; i++) sink = fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) sink = fn();
  const ns = (performance.now() - t) * 1e6 / n;
  console.log(name.padEnd(40), ns.toFixed(0), 'ns');
}
const ts = d.timestamp;
const sig = Buffer.from(d.signature, 'hex');
for (let rep = 0; rep < 2; rep++) {
bench('hmac string key', () => createHmac('sha256', TOKEN).update(`${ts}.`).update(body).digest());
bench('hmac keyobject', () => createHmac('sha256', key).update(`${ts}.`).update(body).digest());
bench('hmac keyobject latin1', () => createHmac('sha256', key).update(`${ts}.`, 'latin1').update(body).digest());
bench('timingSafeEqual', () => timingSafeEqual(sig, sig));
bench('buffer hex decode', () => Buffer.from(d.signature, 'hex'));
bench('TextDecoder fatal', () => td.decode(body));
bench('TextDecoder lax', () => tdl.decode(body));
bench('toString utf8', () => body.toString('utf8'));
bench('isUtf8', () => isUtf8(body));
bench('isUtf8+toString', () => isUtf8(body) && body.toString('utf8'));
bench('utf8Slice', () => body.utf8Slice(0, body.length));
const text = body.toString();
bench('JSON.parse', () => JSON.parse(text));
bench('encode token', () => enc.encode(TOKEN));
bench('Object.keys lower', () => Object.keys(d.headers).every((k) => k === k.toLowerCase()));
bench('regex digits', () => /^[0-9]+$/.test(ts));
}
