// app/api/webhook/route.ts: Next.js route handler, on Vercel's Edge or Node.js runtime
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

export const runtime = 'edge'; // or 'nodejs': the same code, verified with Web Crypto or node:crypto
let webhook: ReturnType<typeof webhookHandler> | undefined; // built on the first request: `next build` needs no token
export const POST = (request: Request): Promise<Response> =>
  (webhook ??= webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' }), handlers))(request);
