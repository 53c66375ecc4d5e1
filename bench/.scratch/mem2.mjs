const heap = () => { for (let i = 0; i < 4; i++) gc(); return process.memoryUsage().heapUsed; };
const N = 1_000_000;
const variant = process.argv[2];
class E { constructor(l, x) { this.lease = l; this.expiresAt = x; this.written = 0; this.response = undefined; } }
const arr = new Array(N);
const b = heap();
let at = 1_767_225_600_000;
for (let i = 0; i < N; i++) {
  if (variant === 'literal') arr[i] = { lease: i + 1, expiresAt: at + 60000, written: 0, response: undefined };
  else if (variant === 'literalSmi') arr[i] = { lease: i + 1, expiresAt: 60000 + (i & 0xffff), written: 0, response: undefined };
  else if (variant === 'class') arr[i] = new E(i + 1, at + 60000);
  else if (variant === 'classSmi') arr[i] = new E(i + 1, 60000 + (i & 0xffff));
  else if (variant === 'array') arr[i] = [i + 1, at + 60000, 0, undefined];
}
globalThis.keep = arr; console.log(variant, (heap() - b) / N, arr.length);
