// src/pages/webhook.ts, served on demand by an SSR adapter (`prerender = false`)
import type { APIRoute } from 'astro';
import { getSecret } from 'astro:env/server';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';
export const prerender = false;
let webhook: ReturnType<typeof webhookHandler> | undefined; // built on the first request: builds need no token
export const POST: APIRoute = ({ request }) =>
  (webhook ??= webhookHandler(createReceiver({ token: getSecret('WEBHOOK_TOKEN') ?? '' }), handlers))(request);
