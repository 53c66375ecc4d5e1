import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver, type Receiver, type ReceiverOptions } from 'webhook-cms-receiver';
import { serveRequest, verifyRequest } from 'webhook-cms-receiver/adapter-kit';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// Issue 45, defect 2: where the head cannot settle the token (a source read, a tenant lookup),
// the kit settles it before it asks for the body, for serveRequest and verifyRequest alike.
// test/rotation/unread-bodies.test.ts counts the bytes a node:http server reads.

const KNOWN = 'whk_settled_known_token_0123';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const modes: { name: string; options: ReceiverOptions }[] = [
  { name: 'a token source', options: { token: async () => [KNOWN] } },
  {
    name: 'tenant mode',
    options: { tenants: async (hash) => (hash === sha256(KNOWN) ? { id: 'site', token: KNOWN } : undefined) },
  },
];

const ways = {
  serveRequest: async (receiver: Receiver, request: Parameters<typeof serveRequest>[1]) =>
    (await serveRequest(receiver, request, { test: () => {} })).status,
  verifyRequest: async (receiver: Receiver, request: Parameters<typeof serveRequest>[1]) => {
    const result = await verifyRequest(receiver, request);
    return 'event' in result ? 200 : result.answer.status;
  },
};

describe.each(modes)('the adapter kit with $name', ({ options }) => {
  it.each(Object.keys(ways) as (keyof typeof ways)[])(
    '%s refuses an unknown token without asking for the body, and reads a known one',
    async (way) => {
      const receiver = createReceiver({ logger: false, ...options });
      let asked = 0;
      const request = (token: string) => {
        const { headers, body } = signDelivery({ token, payload: testPayload() });
        return {
          method: 'POST',
          headers,
          body: () => {
            asked++;
            return body;
          },
        };
      };
      expect(await ways[way](receiver, request('whk_settled_unknown_token'))).toBe(401);
      expect(asked).toBe(0);
      expect(await ways[way](receiver, request(KNOWN))).toBe(200);
      expect(asked).toBe(1);
    },
  );
});
