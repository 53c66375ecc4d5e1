import { expect, it } from 'vitest';
import { describeNodeStarter } from './node-starter-suite.js';

describeNodeStarter({
  name: 'fastify',
  token: 'fastify-example-token-3b9f20',
  more: (start) => {
    it("keeps Fastify's JSON parser on the app's other routes", async () => {
      const { endpoint, settled } = await start();
      const echo = endpoint.replace(/\/webhook$/, '/echo');
      const parsed = await fetch(echo, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hello: 'fastify' }),
      });
      expect([parsed.status, await parsed.json()]).toEqual([200, { received: { hello: 'fastify' } }]);
      const broken = await fetch(echo, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      expect(broken.status).toBe(400);
      expect(await settled()).toEqual(['test  Test Connection received']);
    });
  },
});
