import { createServer } from 'node:http';
import koaBody from '@koa/bodyparser';
import type Koa from 'koa';
import koaBodyParser from 'koa-bodyparser';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/koa';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send, sendHeadersOnly } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, JSON_TYPE, MAX_BODY_BYTES, TOKEN } from './deliveries.js';

/** Koa 3's class; Koa 2's is passed as the same type (the calls made here exist in both). */
export type KoaClass = typeof Koa;
type Middleware = Koa.Middleware;

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
const ok = { status: 200, contentType: JSON_TYPE, allow: undefined, body: { ok: true } };
const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });

function recorder() {
  const events: WebhookEvent[] = [];
  return { events, handlers: { 'article.sync': (event: WebhookEvent) => void events.push(event) } };
}

/** Runs `middleware` on `path` only, as a router would. */
const at =
  (path: string, middleware: Middleware): Middleware =>
  (ctx, next) =>
    ctx.path === path ? middleware(ctx, next) : next();

/** A JSON route of the app's own, answering what the body parser made of the body. */
const echo: Middleware = (ctx) => {
  ctx.body = { parsed: (ctx.request as { body?: unknown }).body ?? null };
};

/** A parser that consumes the request and keeps only the parsed value, as koa-body does by default. */
const parseOnly: Middleware = async (ctx, next) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  await next();
};

async function serve(app: Koa): Promise<string> {
  const server = await listen(createServer(app.callback()));
  onTestFinished(() => server.close());
  return server.url;
}

/**
 * What only the Koa adapter has to get right: body parsers mounted before it, the app's
 * parser elsewhere, what upstream middleware sees, and `verifyWebhook`.
 *
 * @example
 * ```ts
 * koaScenarios('Koa 3', Koa);
 * ```
 */
export function koaScenarios(name: string, KoaApp: KoaClass): void {
  describe(`${name}: body parsers around the adapter`, () => {
    it.each<[string, () => Middleware]>([
      ['koa-bodyparser', () => koaBodyParser({ jsonLimit: '3mb' })],
      ['@koa/bodyparser', () => koaBody({ jsonLimit: '3mb' }) as Middleware],
    ])('uses ctx.request.rawBody kept by %s mounted first, and still checks the signature', async (_name, parser) => {
      const { events, handlers } = recorder();
      const url = await serve(new KoaApp().use(parser()).use(webhookHandler(receiver(), handlers)));
      const good = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { title: 'Café 日本' } }) });
      expect(await send(url, good)).toEqual(ok);
      const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
      expect(await send(url, tampered)).toEqual(answers.error(403, 'Invalid signature'));
      expect(events).toHaveLength(1);
    });

    it.each<[string, () => Middleware]>([
      ['koa-bodyparser', () => koaBodyParser({ jsonLimit: '3mb' })],
      ['@koa/bodyparser', () => koaBody({ jsonLimit: '3mb' }) as Middleware],
    ])(
      'answers 400, not a never-retried 403, to a BOM or invalid UTF-8 body that %s decoded',
      async (_name, parser) => {
        const { events, handlers } = recorder();
        const url = await serve(new KoaApp().use(parser()).use(webhookHandler(receiver(), handlers)));
        const json = Buffer.from(JSON.stringify(articleSyncPayload({ article: { title: 'XX' } })));
        const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]);
        const invalid = Buffer.from(json);
        invalid.set([0xc3, 0x28], json.indexOf('XX'));
        for (const payload of [withBom, invalid]) {
          expect(await send(url, signDelivery({ token: TOKEN, payload }))).toEqual(
            answers.error(400, 'Invalid payload'),
          );
        }
        expect(events).toHaveLength(0);
      },
    );

    it('answers 500 Server misconfigured and logs one line naming the Koa fix behind a parser that kept no raw body', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      onTestFinished(() => errors.mockRestore());
      const { events, handlers } = recorder();
      const url = await serve(new KoaApp().use(parseOnly).use(webhookHandler(receiver(), handlers)));
      const answer = await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }));
      expect(answer).toEqual(answers.error(500, 'Server misconfigured'));
      expect(events).toHaveLength(0);
      expect(errors).toHaveBeenCalledTimes(1);
      const line = String(errors.mock.calls[0]?.[0]);
      expect(line).toContain('Mount the webhook middleware before the body parser');
      // The limit follows the receiver's maxBodyBytes (3 MiB here).
      expect(line).toContain("jsonLimit: '3mb'");
      expect(line).toContain('includeUnparsed: true');
      expect(line).not.toContain(TOKEN);
    });

    it("uses the text koa-body's includeUnparsed keeps under Symbol.for('unparsedBody')", async () => {
      const { events, handlers } = recorder();
      const keepUnparsed: Middleware = async (ctx, next) => {
        const chunks: Buffer[] = [];
        for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        (ctx.request as { body?: unknown }).body = { ...JSON.parse(text), [Symbol.for('unparsedBody')]: text };
        await next();
      };
      const url = await serve(new KoaApp().use(keepUnparsed).use(webhookHandler(receiver(), handlers)));
      expect(await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(ok);
      expect(events).toHaveLength(1);
    });

    it("mounted before a body parser: the app's JSON routes keep parsing, and a bad token is refused from the headers", async () => {
      const { events, handlers } = recorder();
      const app = new KoaApp()
        .use(at('/webhook', webhookHandler(receiver(), handlers)))
        .use(koaBodyParser())
        .use(at('/echo', echo));
      const url = await serve(app);
      expect((await send(`${url}/echo`, json({ a: [1] }))).body).toEqual({ parsed: { a: [1] } });
      expect(await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(ok);
      const early = await sendHeadersOnly(`${url}/webhook`, { Authorization: 'Bearer wrong' }, 1000);
      expect(early).toEqual(answers.error(401, 'Invalid token'));
      expect(events).toHaveLength(1);
    });

    it('lets upstream middleware see the status of every answer, refusals before the body included', async () => {
      const statuses: number[] = [];
      const app = new KoaApp()
        .use(async (ctx, next) => {
          await next();
          statuses.push(ctx.status);
        })
        .use(webhookHandler(receiver(), {}));
      const url = await serve(app);
      const good = signDelivery({ token: TOKEN, payload: testPayload() });
      await send(url, good);
      await send(url, { headers: good.headers, body: `${String(good.body)} ` });
      await send(url, signDelivery({ token: 'not-the-token', payload: testPayload() }));
      await send(url, { method: 'GET' });
      expect(statuses).toEqual([200, 403, 401, 405]);
    });
  });

  describe(`${name}: verifyWebhook`, () => {
    it('puts the verified event on ctx.state.webhookEvent and calls the next middleware', async () => {
      const app = new KoaApp().use(verifyWebhook(receiver())).use((ctx) => {
        // No cast: the adapter augments Koa's default state.
        const event = ctx.state.webhookEvent;
        ctx.status = 202;
        ctx.body = { received: event?.type, slug: event?.type === 'article.sync' ? event.article.slug : null };
      });
      const url = await serve(app);
      const answer = await send(
        url,
        signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'mine' } }) }),
      );
      expect(answer).toEqual({
        status: 202,
        contentType: JSON_TYPE,
        allow: undefined,
        body: { received: 'article.sync', slug: 'mine' },
      });
    });

    it('answers refused deliveries itself and never calls the next middleware', async () => {
      const route = vi.fn();
      const url = await serve(new KoaApp().use(verifyWebhook(receiver())).use(route));
      const expired = signDelivery({ token: TOKEN, payload: articleSyncPayload(), timestamp: 1_000_000_000 });
      expect(await send(url, expired)).toEqual(answers.error(403, 'Request expired'));
      const early = await sendHeadersOnly(url, { Authorization: 'Bearer wrong' }, 1000);
      expect(early).toEqual(answers.error(401, 'Invalid token'));
      expect(route).not.toHaveBeenCalled();
    });
  });
}
