import type { APIRoute } from 'astro';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { webhook } from '../lib/site';

let handle: ((request: Request) => Promise<Response>) | undefined;

// The raw request goes to the receiver untouched: the signature covers the exact bytes.
export const ALL: APIRoute = async ({ request }) => {
  if (!handle) {
    const { receiver, handlers } = await webhook();
    handle = webhookHandler(receiver, handlers);
  }
  return handle(request);
};
