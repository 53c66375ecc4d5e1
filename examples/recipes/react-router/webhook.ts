// app/routes/webhook.ts: a resource route (React Router 7 framework mode; Remix 2 alike)
import type { ActionFunctionArgs } from 'react-router';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

let webhook: ReturnType<typeof webhookHandler> | undefined;
// An action gets every non-GET request, unread: the webhook reads the raw body itself.
export const action = ({ request }: ActionFunctionArgs) =>
  (webhook ??= webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' }), handlers))(request);
