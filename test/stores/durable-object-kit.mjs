// checkDedupStore (webhook-cms-receiver/testing) against durableObjectDedupStore in workerd:
// a store whose every call is made inside the test Worker (test/cloudflare/worker.ts, /store),
// so the kit's races are real concurrent requests to the Durable Objects.

/**
 * The kit as one `[name, run]` check for test/cloudflare/durable-object.mjs.
 *
 * @example
 * ```js
 * const [name, run] = durableObjectKitCheck(worker, 'DEDUP', testing);
 * ```
 */
export function durableObjectKitCheck(worker, binding, testing) {
  const storeIn = (options) => {
    const call = async (op, claim, extra = {}) => {
      const reply = await worker.store(binding, op, claim, { options, ...extra });
      if ('thrown' in reply) throw new Error(`${op} threw: ${reply.thrown}`);
      return reply.result;
    };
    return {
      leaseMs: options.leaseMs,
      ordering: true,
      claim: (claim) => call('claim', claim),
      renew: (claim, lease) => call('renew', claim, { lease }),
      complete: (claim, lease, answer) => call('complete', claim, { lease, answer }),
      release: async (claim, lease) => void (await call('release', claim, { lease })),
    };
  };
  return [
    `${binding}: passes checkDedupStore (webhook-cms-receiver/testing)`,
    async () => {
      const report = await testing.checkDedupStore(storeIn, { name: `durableObjectDedupStore (${binding})` });
      return `${report.checks.filter((check) => check.outcome === 'passed').length} checks passed`;
    },
  ];
}
