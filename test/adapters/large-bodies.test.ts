import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import type { RunningServer } from '../helpers/listen.js';
import { answers, deliveryAt, MAX_BODY_BYTES, nowSeconds, TOKEN } from './deliveries.js';
import { nodeFrameworkAdapters } from './node-servers.js';
import { startExpress4, startExpress5 } from './servers.js';

// 256 KiB bodies through the adapters on node:http: a body that size reaches the adapter in
// several chunks, which the kit joins (Buffer.concat) and the core decodes through its large-body
// path (all ASCII as it is; otherwise validated, then through UTF-16). Issue 37 item 5 made both
// cheaper; these pin that the answers and the text the handler gets stay exact.

const SIZE = 256 * 1024;
/** A signed article.sync whose markdown fills the body to about `SIZE` bytes, ending in `last`. */
function largeDelivery(id: string, last: string) {
  const markdown = `${'Plain ASCII prose about search engines. '.repeat(SIZE / 40)}${last}`;
  return {
    markdown,
    delivery: deliveryAt(articleSyncPayload({ article: { content_markdown: markdown } }), nowSeconds(), id),
  };
}

describe.each(Object.entries({ 'Express 4': startExpress4, 'Express 5': startExpress5, ...nodeFrameworkAdapters }))(
  '%s: 256 KiB bodies',
  (_name, start) => {
    const events: WebhookEvent[] = [];
    let server: RunningServer;
    beforeAll(async () => {
      const receiver = createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
      server = await start(receiver, { 'article.sync': (event) => void events.push(event) });
    });
    afterAll(() => server.close());
    const markdownOf = (event: WebhookEvent | undefined) =>
      event?.type === 'article.sync' ? event.article.content_markdown : undefined;

    it('delivers an all-ASCII body, and one whose last character is not ASCII, with the exact text', async () => {
      for (const [id, last] of [
        ['ascii', '.'],
        ['e-acute-last', 'é'],
        ['emoji-last', '🚀'],
      ] as const) {
        const { markdown, delivery } = largeDelivery(id, last);
        expect(Buffer.byteLength(delivery.body as string)).toBeGreaterThan(SIZE);
        expect((await send(`${server.url}/webhook`, delivery)).status, id).toBe(200);
        expect(markdownOf(events.at(-1)), id).toBe(markdown);
      }
    });

    it('answers 400 Invalid payload to a signed body with an invalid UTF-8 byte near its end', async () => {
      const before = events.length;
      for (const [id, bad] of [
        ['stray-continuation', 0x80],
        ['cut-sequence', 0xc3],
        ['never-utf8', 0xff],
      ] as const) {
        const { delivery } = largeDelivery(id, 'x');
        const bytes = Buffer.from(delivery.body as string);
        // The markdown's last character, just before the closing quote and the envelope's end.
        bytes[bytes.lastIndexOf('x"')] = bad;
        const resigned = signDelivery({ token: TOKEN, payload: bytes, deliveryId: id });
        expect(await send(`${server.url}/webhook`, resigned), id).toEqual(answers.error(400, 'Invalid payload'));
      }
      expect(events.length).toBe(before);
    });
  },
);
