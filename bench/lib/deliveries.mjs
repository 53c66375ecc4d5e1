// Realistic article.sync bodies of exact sizes, and signed copies of them, built with node:crypto
// so the bench spends no time in the library's own (deliberately slow, pure-JS) test signer.

import { createHmac, randomUUID } from 'node:crypto';
import { articleSyncPayload } from 'webhook-cms-receiver/testing';

export const TOKEN = 'whk_bench_7f3c2a9e41d04b6f8a15c0e2d9b7a6f1';
export const SIZES = [
  ['1 KiB', 1024],
  ['16 KiB', 16 * 1024],
  ['256 KiB', 256 * 1024],
  ['1 MiB', 1024 * 1024],
];

// A paragraph of the mixed text SEO articles carry: accents, dashes, quotes, CJK and an emoji.
const PARAGRAPH =
  'Le référencement naturel — « SEO » — reste la source de trafic la plus durable. 検索エンジン最適化は長期戦です。 Write for people first 🚀, then for crawlers. ';

// The same length of English only: the ASCII fast paths of Node's decoders (issue 37 found a
// slowdown only ASCII bodies showed).
const ASCII_PARAGRAPH =
  'Organic search -- SEO -- is still the most durable source of traffic. Search engine optimisation is a long game. Write for people first, then for crawlers. ';

/**
 * The JSON text of an article.sync envelope whose UTF-8 form is exactly `size` bytes: mixed
 * Latin/CJK text by default, English only with `ascii`.
 */
export function articleBody(size, { id = 'a7d1e1b0-52c4-4a53-9c1e-0f6d3b8a9e21', ascii = false } = {}) {
  const paragraph = ascii ? ASCII_PARAGRAPH : PARAGRAPH;
  const title = ascii ? { title: 'Ten SEO tips for 2026' } : {};
  const build = (markdown, html) =>
    JSON.stringify(
      articleSyncPayload({
        timestamp: 1_767_225_600,
        article: { id, ...title, content_markdown: markdown, content_html: html },
      }),
    );
  const base = Buffer.byteLength(build('', ''));
  if (base > size) throw new Error(`an article.sync envelope needs at least ${base} bytes`);
  // Markdown and HTML each carry the text once; whole paragraphs first, ASCII padding after.
  const text = paragraph.repeat(Math.max(0, Math.floor((size - base - 16) / (2 * Buffer.byteLength(paragraph)))));
  const html = `<p>${text}</p>`;
  let markdown = text;
  const pad = size - Buffer.byteLength(build(markdown, html));
  if (pad < 0) throw new Error('article body overshot its size');
  markdown += 'x'.repeat(pad);
  const body = build(markdown, html);
  if (Buffer.byteLength(body) !== size)
    throw new Error(`article body is ${Buffer.byteLength(body)} bytes, wanted ${size}`);
  return body;
}

export function hmacHex(secret, message) {
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** Headers (lower-case, as Node's req.headers has them) and body bytes of one signed delivery. */
export function signedDelivery(body, { timestamp = Math.floor(Date.now() / 1000), deliveryId = randomUUID() } = {}) {
  const bytes = Buffer.from(body);
  const ts = String(timestamp);
  const signature = createHmac('sha256', TOKEN).update(`${ts}.`).update(bytes).digest('hex');
  return {
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      authorization: `Bearer ${TOKEN}`,
      'x-service-timestamp': ts,
      'x-service-signature': `sha256=${signature}`,
      'x-service-event': 'article.sync',
      'x-service-delivery-id': deliveryId,
    },
    body: bytes,
    timestamp: ts,
    signature,
  };
}

/**
 * `count` deliveries of one size, each a different body (so a different signature) under a
 * fresh delivery id: what dedup sees when every request is new.
 */
export function freshDeliveries(size, count) {
  const template = templates.get(size) ?? articleBody(size, { id: TEMPLATE_ID });
  templates.set(size, template);
  const deliveries = new Array(count);
  const timestamp = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    const id = randomUUID(); // as long as TEMPLATE_ID, so the size stays exact
    deliveries[i] = signedDelivery(template.replace(TEMPLATE_ID, id), { timestamp, deliveryId: id });
  }
  return deliveries;
}

const TEMPLATE_ID = '00000000-0000-4000-8000-000000000000';
const templates = new Map();
