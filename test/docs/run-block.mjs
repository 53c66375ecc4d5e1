// Runs one docs code block (already stripped of its types) the way a reader would, and tells
// test/docs/code-blocks.test.ts what it did, on stdout: `LISTENING <port>` for each server it
// started, `HANDLED <status>` when it exports a receiver (the test exports a top-level
// `receiver` for it), then `DONE` once its top level finished and every server listens. A fixed port in
// the docs (3000) becomes a free one, so runs do not collide; nothing else is changed.
import { Server } from 'node:net';
import { pathToFileURL } from 'node:url';
import './prelude.mjs';

const listening = [];
const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') args[0] = 0;
  else if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) args[0] = { ...args[0], port: 0 };
  listening.push(
    new Promise((resolve, reject) => {
      this.once('listening', () => resolve(this.address().port));
      this.once('error', reject);
    }),
  );
  return listen.apply(this, args);
};

const block = await import(pathToFileURL(process.argv[2]).href);
for (const port of await Promise.all(listening)) console.log(`LISTENING ${port}`);
// A block that builds its own receiver (a store's, say) without serving it: hand it a signed
// test delivery, through the store the block set up.
if (typeof block.receiver?.handle === 'function') {
  const { signDelivery, testPayload } = await import('webhook-cms-receiver/testing');
  const delivery = signDelivery({ token: process.env.WEBHOOK_TOKEN, payload: testPayload() });
  console.log(`HANDLED ${(await block.receiver.handle(delivery)).status}`);
}
console.log('DONE');
