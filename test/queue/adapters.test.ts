import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue } from 'webhook-cms-receiver/bullmq';
import { webhookHandler as express } from 'webhook-cms-receiver/express';
import { type webhookPlugin, webhookHandler as fastify } from 'webhook-cms-receiver/fastify';
import { webhookHandler as fetchHandler } from 'webhook-cms-receiver/fetch';
import { webhookHandler as h3 } from 'webhook-cms-receiver/h3';
import { webhookHandler as hono } from 'webhook-cms-receiver/hono';
import { webhookHandler as koa } from 'webhook-cms-receiver/koa';
import { webhookHandler as lambda } from 'webhook-cms-receiver/lambda';
import { webhookHandler as node } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { adapters } from '../adapters/servers.js';
import { bullConnection, describeWithRedis, freshQueueName } from './queue-helpers.js';

const token = 'queue-adapters-token';

describeWithRedis('queue mode: webhookHandler(receiver) without handlers, on every adapter', () => {
  let queue: Queue;
  beforeAll(() => {
    queue = new Queue(freshQueueName('adapters'), { connection: bullConnection() });
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
  });

  it('type-checks every adapter with the receiver alone', () => {
    const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
    // Each call compiles only because `handlers` is optional now.
    const made = [
      express(receiver),
      fastify(receiver),
      fetchHandler(receiver),
      h3(receiver),
      hono(receiver),
      koa(receiver),
      lambda(receiver),
      node(receiver),
    ];
    expect(made.every((handler) => typeof handler === 'function')).toBe(true);
    const options: Parameters<typeof webhookPlugin>[1] = { receiver, path: '/webhook' };
    expect(options.handlers).toBeUndefined();
  });

  for (const [name, start] of Object.entries(adapters)) {
    it(`${name}: answers 200 {"ok":true,"queued":true} over HTTP and the job is in the engine`, async () => {
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const server = await start(receiver, undefined as unknown as WebhookHandlers);
      try {
        const signed = signDelivery({ token, payload: articleSyncPayload() });
        const response = await fetch(`${server.url}/webhook`, {
          method: 'POST',
          headers: signed.headers,
          body: signed.body,
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ ok: true, queued: true });
        const job = await queue.getJob(await bullmqJobId(signed.headers['X-Service-Delivery-Id']!));
        expect(job?.data.body).toBe(signed.body);
      } finally {
        await server.close();
      }
    });
  }
});
