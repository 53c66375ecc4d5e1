// `npm run dev`: the receiver and one worker together, for local development. In production run
// them apart (`npm run receiver`, `npm run worker`), as many workers as you need.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const children = ['receiver.mjs', 'worker.mjs'].map((script) =>
  spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], { stdio: 'inherit' }),
);
let stopping = false;
const stop = (code) => {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exitCode = code;
};
// One dies, both stop: a half-running pair would accept deliveries nobody handles, or the reverse.
for (const child of children) child.once('exit', (code) => stop(code ?? 1));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stop(0));
