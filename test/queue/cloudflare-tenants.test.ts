import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? 'two sites share a delivery id: two messages with their tenant (R2 too), claims per tenant'
  : WORKERD_MISSING;

describe('tenant mode on Cloudflare Queues in workerd (test/queue/cloudflare-tenants.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./cloudflare-tenants.mjs', import.meta.url));
      expect(output, output).toMatch(/^cloudflare-tenants: [1-9]\d* passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    180_000,
  );
});
