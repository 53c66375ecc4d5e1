// Talks to the test Worker (worker.ts) over real HTTP: signed deliveries, the run log, direct
// store calls and the inspected object's storage.

/**
 * A client for the running test Worker. `testing` is `webhook-cms-receiver/testing`.
 *
 * @example
 * ```js
 * const worker = workerClient(url, token, testing);
 * const answer = await worker.deliver('/webhook', testing.articleSyncPayload());
 * ```
 */
export function workerClient(url, token, testing) {
  const at = (path) => new URL(path, url).href;
  const post = async (path, { headers, body }) => {
    const response = await fetch(at(path), { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  };
  const getJson = async (path) => (await fetch(at(path), { signal: AbortSignal.timeout(30_000) })).json();
  return {
    /** Signs once; send the result as many times as wanted, as the service's retries would. */
    sign: (payload, deliveryId) => testing.signDelivery({ token, payload, deliveryId }),
    post,
    deliver: (path, payload) => post(path, testing.signDelivery({ token, payload })),
    /** The run log of one article: `{ runs, running, maxOverlap }`. */
    runs: (articleId) => getJson(`/runs?article=${encodeURIComponent(articleId)}`),
    /** One store method called inside workerd: resolves `{ result }` or `{ thrown }`. */
    store: async (binding, op, claim, extra = {}) => {
      const body = JSON.stringify({ binding, op, claim, ...extra });
      return (await post('/store', { headers: { 'content-type': 'application/json' }, body })).body;
    },
    /** What the inspected object named `name` stores, and its alarm. */
    inspect: (name) => getJson(`/inspect?name=${encodeURIComponent(name)}`),
  };
}

/** Polls `read` until `done(value)` holds; rejects with the last value after `timeoutMs`. */
export async function waitFor(read, done, { timeoutMs = 10_000, everyMs = 25 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last seen ${JSON.stringify(value)}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
