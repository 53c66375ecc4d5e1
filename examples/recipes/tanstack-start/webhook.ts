// src/routes/webhook.ts: a TanStack Start server route
import { createFileRoute } from '@tanstack/react-router';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

let webhook: ReturnType<typeof webhookHandler> | undefined; // built on the first request: builds need no token
const POST = ({ request }: { request: Request }) =>
  (webhook ??= webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' }), handlers))(request);
export const Route = createFileRoute('/webhook')({ server: { handlers: { POST } } });
