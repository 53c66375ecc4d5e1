// Envelope bodies of the soak, made with the payload factories of `webhook-cms-receiver/testing`
// (fresh article and delivery ids on every call), padded to a size, and signed with the
// library's own sender, `signDelivery`.

import { randomUUID } from 'node:crypto';

/** The `/testing` entry of the soak's own copy of the package (see runtime.mjs). */
let testing;
export const useTesting = (module) => {
  testing = module;
};

/** The JSON text of an article.sync (one in ten an article.trash) of about `size` bytes. */
export function articleBody(size, random) {
  if (random() < 0.1) return JSON.stringify(testing.articleTrashPayload());
  const base = JSON.stringify(testing.articleSyncPayload());
  const pad = Math.max(0, size - Buffer.byteLength(base));
  return JSON.stringify(testing.articleSyncPayload({ article: { content_markdown: 'x'.repeat(pad) } }));
}

export const testBody = () => JSON.stringify(testing.testPayload());

/** Headers and body as the service sends them; `offsetSeconds` makes a stale timestamp. */
export function signed(token, body, deliveryId, offsetSeconds = 0) {
  const timestamp = Math.floor(Date.now() / 1000) + offsetSeconds;
  return testing.signDelivery({ token, payload: body, timestamp, deliveryId });
}

export const hostileId = () => `hostile-${randomUUID()}`;
