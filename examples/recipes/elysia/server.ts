// Elysia on Bun: `bun run server.ts`
import { Elysia } from 'elysia';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

const webhook = webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' }), handlers);
// `parse: 'none'`: Elysia leaves the body unread, so the webhook gets the bytes the signature covers.
export const app = new Elysia().all('/webhook', ({ request }) => webhook(request), { parse: 'none' });
if (import.meta.main) app.listen(Number(process.env.PORT ?? 3000));
