import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScript } from '../helpers/spawn-example.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'demo-test-token-3b9f0c7e51a2';

describe('npm run demo', () => {
  it('plays the scripted session, every step gets its expected answer, exits 0 and never prints the token', async () => {
    const { code, output } = await runScript(root, 'scripts/demo.mjs', { WEBHOOK_TOKEN: TOKEN });
    expect(output).not.toContain(TOKEN);
    expect(output).not.toMatch(/sha256=[0-9a-f]{64}/i);
    expect(code, output).toBe(0);
    const rows = output.split('\n').filter((line) => /^\d+\s/.test(line));
    expect(rows).toHaveLength(9);
    expect(rows.every((row) => row.endsWith('✓'))).toBe(true);
    expect(rows.map((row) => row.split(/\s{2,}/)[3])).toEqual([
      '200',
      '200',
      '200',
      '200',
      '200',
      '403',
      '403',
      '401',
      '200',
    ]);
    expect(output).toContain('"duplicate":true');
    // The publishing rules, as a visitor sees them: draft private, published, renamed (301), trashed (410).
    expect(output).toContain('after step 2: /articles/hello-webhooks 404, /articles/hello-again 404');
    expect(output).toContain('after step 3: /articles/hello-webhooks 200, /articles/hello-again 404');
    expect(output).toContain(
      'after step 5: /articles/hello-webhooks 301 → /articles/hello-again, /articles/hello-again 200',
    );
    expect(output).toContain('after step 9: /articles/hello-webhooks 410, /articles/hello-again 410');
    // Generous: on a checkout whose dist/ is older than src/ the demo builds first, and PGlite
    // (the starter's embedded Postgres) takes seconds to start on a busy machine.
  }, 120_000);
});
