import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? 'messages at the limit − 1, exactly and + 1 byte, and a 10 MiB body: each processed once, exact, R2 copy deleted'
  : WORKERD_MISSING;

describe('Cloudflare Queues: large deliveries go to R2 by reference (test/queue/cloudflare-bodies.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./cloudflare-bodies.mjs', import.meta.url));
      expect(output, output).toMatch(/^cloudflare-bodies: 4 passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    300_000,
  );
});
