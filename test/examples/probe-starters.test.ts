import { afterAll, describe, expect, it } from 'vitest';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { startStarter } from '../helpers/starter-process.js';
import { expectProbePasses } from './starter-checks.js';

// `probe` is the conformance check users run against their own endpoint: every starter we ship
// must pass it, writes included, when copied out of the repository and started as documented.
const TOKEN = 'probe-the-starters-token-51c9';
const copies: CopiedStarter[] = [];
afterAll(async () => {
  for (const copy of copies) await copy.remove();
});

describe.each(['express-publisher', 'hono-node', 'fastify', 'koa', 'nestjs'])(
  'probe against examples/%s, copied out',
  (name) => {
    it('passes every row, writes included', async () => {
      const starter = await copyStarter(name);
      copies.push(starter);
      const server = await startStarter(starter.dir, { WEBHOOK_TOKEN: TOKEN, PORT: '0', HOST: '127.0.0.1' });
      try {
        await expectProbePasses(server.url, TOKEN);
        expect(server.output()).not.toContain(TOKEN);
      } finally {
        await server.stop();
      }
    }, 180_000);
  },
);
