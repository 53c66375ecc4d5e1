// The receiver Lambda, behind a Function URL: verifies each delivery, remembers its id in
// DynamoDB and hands it to SQS, answering 200 {"ok": true, "queued": true} in milliseconds.
// It runs no handlers: the worker Lambda does.
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/lambda';
import { sqsQueue } from 'webhook-cms-receiver/sqs';
import { bodies, dedup, queue } from './aws.mjs';

// Created once per container, at cold start. A missing WEBHOOK_TOKEN fails the cold start.
const receiver = createReceiver({
  token: process.env.WEBHOOK_TOKEN,
  queue: sqsQueue({ ...queue, bodies }),
  // A redelivery is answered {"duplicate": true} on any container, for the 72 h the service retries.
  dedup,
});

export const handler = webhookHandler(receiver);
