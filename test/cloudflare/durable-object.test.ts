import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? 'concurrent copies run once, ordering, per-article exclusion, leases and retention all pass'
  : WORKERD_MISSING;

describe('durableObjectDedupStore and WebhookDedupObject in workerd (test/cloudflare/durable-object.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./durable-object.mjs', import.meta.url));
      expect(output, output).toMatch(/^durable-object: [1-9]\d* passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    180_000,
  );
});
