const p = globalThis.process;
let c; try { c = p?.getBuiltinModule?.('node:crypto'); } catch (e) { c = 'threw ' + e; }
console.log(typeof p, typeof p?.getBuiltinModule, typeof c?.createHmac);
