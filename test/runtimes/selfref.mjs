import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { createReceiver } from 'webhook-cms-receiver';
console.log(typeof webhookHandler, typeof createReceiver);
