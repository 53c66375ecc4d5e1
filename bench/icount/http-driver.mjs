// The parent's side of an HTTP subject: a server child under callgrind (http-child.mjs) gets
// the same signed delivery on one kept-alive connection, a warm-up first (at 1 KiB, then at
// the run's size), then windows of requests, each ended by a mark the child turns into a
// callgrind dump.

import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';
import { valgrindArgs } from './callgrind.mjs';

// Under callgrind a few thousand requests can outlast the receiver's 5-minute timestamp window,
// so every batch is signed anew, before it is sent.
const SIGNED_FOR = 250;

/** One POST on the kept-alive connection; resolves when the answer is read, rejects unless 200. */
function post(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `amount` requests, one at a time, the delivery signed anew every SIGNED_FOR. */
async function requests(agent, url, body, amount) {
  let headers;
  for (let sent = 0; sent < amount; sent++) {
    if (sent % SIGNED_FOR === 0) {
      const { host, ...signed } = signedDelivery(body).headers;
      headers = signed;
    }
    await post(agent, url, headers, body);
  }
}

/**
 * Counts one route of one framework: `warmSmall` requests at 1 KiB (V8 tiers up per request,
 * not per byte, so a large body need not pay for it), `warmup` at the size, then `windows`
 * windows of `calls` requests, each window a dump of `${outPrefix}.<n>` (dump 1 is start-up
 * and warm-up). `ascii`: the body's text is English only, not the mixed Latin/CJK article.
 */
export async function runHttp(
  outPrefix,
  { framework, route, size, ascii = false, warmSmall = 0, warmup, calls, windows, nodeFlags },
) {
  const child = fork(fileURLToPath(new URL('./http-child.mjs', import.meta.url)), [framework], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execPath: 'valgrind',
    execArgv: valgrindArgs(outPrefix, nodeFlags),
  });
  try {
    const [{ port }] = await once(child, 'message');
    const url = `http://127.0.0.1:${port}/${route}`;
    const body = articleBody(size, { ascii });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    if (warmSmall > 0) await requests(agent, url, articleBody(1024, { ascii }), warmSmall);
    await requests(agent, url, body, warmup);
    for (let w = 0; w <= windows; w++) {
      if (w > 0) await requests(agent, url, body, calls);
      child.send({ mark: w });
      while ((await once(child, 'message'))[0]?.marked !== w);
    }
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit').catch(() => {});
  }
}
