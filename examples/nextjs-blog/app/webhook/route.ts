import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { webhook } from '../../lib/site';

export const runtime = 'nodejs';

let handle: ((request: Request) => Promise<Response>) | undefined;

// The raw request goes to the receiver untouched: the signature covers the exact bytes. Other
// methods get Next's own 405.
export async function POST(request: Request): Promise<Response> {
  if (!handle) {
    const { receiver, handlers } = await webhook();
    handle = webhookHandler(receiver, handlers);
  }
  return handle(request);
}
