import { expect, it } from 'vitest';
import { articleSyncPayload, deliver } from 'webhook-cms-receiver/testing';
import { describeNodeStarter } from './node-starter-suite.js';

// The NestJS starter as a user runs it: copied out, its dependencies installed from the
// registry, built by `npm start` (tsc) and started on the Express platform by default.
describeNodeStarter({
  name: 'nestjs',
  token: 'nestjs-starter-token-0d93b1',
  more: (start) => {
    it('runs on the Fastify platform with PLATFORM=fastify', async () => {
      const { endpoint, settled, output } = await start({ PLATFORM: 'fastify' });
      expect(output()).toContain('NestJS on fastify');
      const payload = articleSyncPayload({ article: { slug: 'on-fastify', title: 'Fastify' } });
      const synced = await deliver(endpoint, {
        token: 'nestjs-starter-token-0d93b1',
        payload,
        deliveryId: 'f-1',
        maxAttempts: 1,
      });
      expect(synced.summary).toMatchObject({ ok: true, status: 200, duplicate: false });
      expect(await settled()).toEqual([
        'sync  on-fastify (published) "Fastify" [f-1]',
        'test  Test Connection received',
      ]);
    });
  },
});
