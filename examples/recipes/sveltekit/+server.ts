// src/routes/webhook/+server.ts
import { env } from '$env/dynamic/private';
import type { RequestHandler } from '@sveltejs/kit';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

let webhook: ReturnType<typeof webhookHandler> | undefined; // built on the first request: builds need no token
export const POST: RequestHandler = ({ request }) =>
  (webhook ??= webhookHandler(createReceiver({ token: env.WEBHOOK_TOKEN ?? '' }), handlers))(request);
