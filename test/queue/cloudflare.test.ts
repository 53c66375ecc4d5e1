import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? 'queued answers, one effect per delivery, retries with backoff, dead letters and ordering all pass'
  : WORKERD_MISSING;

describe('queue mode on Cloudflare Queues in workerd (test/queue/cloudflare-queue.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./cloudflare-queue.mjs', import.meta.url));
      expect(output, output).toMatch(/^cloudflare-queue: [1-9]\d* passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    180_000,
  );
});
