// An open-loop HTTP/1.1 load generator on raw keep-alive sockets, for the throughput record:
// requests leave on a fixed schedule (`rate` per second) whether or not earlier ones were
// answered, and each latency is counted from the moment its request was due, so a server
// that falls behind is charged for the queue it builds (no coordinated omission). A request
// waits for a free connection when `maxConnections` are all busy; that wait counts too.

import { connect } from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');

/** The first whole answer in `bytes`, with Content-Length or chunked (our adapter streams), or undefined. */
function parseAnswer(bytes) {
  const headEnd = bytes.indexOf(HEADER_END);
  if (headEnd < 0) return undefined;
  const head = bytes.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  let at = headEnd + 4;
  if (length !== undefined || !/\r\ntransfer-encoding: *chunked/i.test(head)) {
    const end = at + Number(length ?? 0);
    return end > bytes.length ? undefined : { status, end };
  }
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.toString('latin1', at, lineEnd), 16);
    const end = lineEnd + 2 + size + 2;
    if (end > bytes.length) return undefined;
    if (size === 0) return { status, end };
    at = end;
  }
}

function connection(port, onAnswer, onFail) {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  const c = { socket, busy: undefined, dead: false };
  const fail = () => {
    c.dead = true;
    const pending = c.busy;
    c.busy = undefined;
    if (pending !== undefined) onFail(c, pending);
  };
  socket.on('error', fail);
  socket.on('close', fail);
  socket.on('data', (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    const answer = parseAnswer(buffered);
    if (answer === undefined) return;
    buffered = buffered.subarray(answer.end);
    const pending = c.busy;
    c.busy = undefined;
    onAnswer(c, pending, answer.status);
  });
  return c;
}

/** The nearest-rank percentile `p` (0–100) of sorted `values`. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/**
 * Offers `rate` requests per second for `seconds` to `port`, `build(i)` making request i's
 * bytes. Resolves once every request was answered or `graceMs` after the last was due:
 * `{ offered, answered, statuses, unanswered, failed, p50, p99, max }` (latencies in ms).
 */
export function openLoop({ port, rate, seconds, build, maxConnections = 256, graceMs = 5_000 }) {
  const total = Math.max(1, Math.round(rate * seconds));
  const due = new Float64Array(total);
  const latencies = [];
  const statuses = new Map();
  const idle = [];
  const waiting = [];
  const all = [];
  let open = 0;
  let answered = 0;
  let failed = 0;
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  const settle = () => {
    if (answered + failed === total) resolveDone();
  };
  const dispatch = (c, i) => {
    c.busy = i;
    c.socket.write(build(i));
  };
  const next = (c) => {
    if (c.dead) return;
    if (waiting.length > 0) dispatch(c, waiting.shift());
    else idle.push(c);
  };
  const onAnswer = (c, i, status) => {
    latencies.push(performance.now() - due[i]);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    answered++;
    next(c);
    settle();
  };
  const onFail = () => {
    open--;
    failed++;
    statuses.set('no answer', (statuses.get('no answer') ?? 0) + 1);
    settle();
  };
  const send = (i) => {
    const c = idle.pop();
    if (c) return dispatch(c, i);
    if (open < maxConnections) {
      open++;
      const c = connection(port, onAnswer, onFail);
      all.push(c);
      return dispatch(c, i);
    }
    waiting.push(i);
  };
  const start = performance.now();
  let sent = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const upTo = Math.min(total, Math.floor(((now - start) / 1000) * rate) + 1);
      for (; sent < upTo; sent++) {
        due[sent] = start + (sent / rate) * 1000;
        send(sent);
      }
      if (sent < total) setTimeout(tick, 1);
      else {
        const timer = setTimeout(resolveDone, graceMs);
        done.then(() => {
          clearTimeout(timer);
          const sorted = latencies.sort((a, b) => a - b);
          const result = {
            offered: total,
            answered,
            statuses: Object.fromEntries(statuses),
            unanswered: total - answered - failed,
            failed,
            seconds: (performance.now() - start) / 1000,
            p50: percentile(sorted, 50),
            p99: percentile(sorted, 99),
            max: sorted.at(-1) ?? 0,
            connections: all.length,
          };
          // Past the grace, connections still busy are closed: their requests stay unanswered.
          for (const c of all) c.socket.destroy();
          resolve(result);
        });
      }
    };
    tick();
  });
}
