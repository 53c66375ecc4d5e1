import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? 'poison messages dead-lettered with a reason, a held claim costs no attempt, 40 copies with one effect, a consumer throwing mid-batch loses nothing'
  : WORKERD_MISSING;

describe('Cloudflare Queues: the fault rows workerd can run (test/queue/cloudflare-faults.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./cloudflare-faults.mjs', import.meta.url));
      expect(output, output).toMatch(/^cloudflare-faults: 9 passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    300_000,
  );
});
