import { describe, expect, it } from 'vitest';
import { runWorkerdScript, WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';

const title = workerdInstalled
  ? "the README's snippet, verbatim, with its bindings and no other option: small and 1 MiB deliveries published once"
  : WORKERD_MISSING;

describe('Cloudflare queue mode as the README shows it (test/queue/cloudflare-defaults.mjs)', () => {
  it.skipIf(!workerdInstalled)(
    title,
    async () => {
      const { code, output } = await runWorkerdScript(new URL('./cloudflare-defaults.mjs', import.meta.url));
      expect(output, output).toMatch(/^cloudflare-defaults: 3 passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    300_000,
  );
});
