// src/functions/webhook.ts (Azure Functions, Node.js model v4): HttpRequest is a Fetch Request in all but name
import { app, type HttpRequest } from '@azure/functions';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { handlers } from '../handlers.js';

const webhook = webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' }), handlers);
const toInit = async (res: Response) => ({ status: res.status, headers: res.headers, body: await res.text() });
const handler = async (request: HttpRequest) => toInit(await webhook(request as unknown as Request));
app.http('webhook', { methods: ['POST'], authLevel: 'anonymous', handler });
