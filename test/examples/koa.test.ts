import { expect, it } from 'vitest';
import { send } from '../helpers/http-client.js';
import { describeNodeStarter } from './node-starter-suite.js';

describeNodeStarter({
  name: 'koa',
  token: 'koa-example-token-71c4d9',
  more: (start) => {
    it('answers 405 with Allow: POST to another method on the webhook path and 404 elsewhere', async () => {
      const { endpoint } = await start();
      expect(await send(endpoint, { method: 'GET' })).toMatchObject({ status: 405, allow: 'POST' });
      expect((await fetch(endpoint.replace(/\/webhook$/, '/other'))).status).toBe(404);
    });
  },
});
