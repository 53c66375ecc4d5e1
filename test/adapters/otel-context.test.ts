import { createServer } from 'node:http';
import { setImmediate as turn } from 'node:timers/promises';
import { context, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import express5 from 'express';
import fastify5 from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookPlugin } from 'webhook-cms-receiver/fastify';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { listen, type RunningServer } from '../helpers/listen.js';
import { answers, TOKEN } from './deliveries.js';

// Issue 31 item 7, as users meet it: without `openTelemetry()` on the receiver, the span the
// host's instrumentation made active for the request must be the parent of the handler's
// database span, not leave it a root span.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('host');
/** The span contexts of the request spans the hosts made, newest last. */
const requestSpans: ReturnType<Span['spanContext']>[] = [];

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

/** Runs `next` inside an active request span, ended once the answer is out, as an HTTP instrumentation does. */
function inRequestSpan(finished: { once(event: 'finish', listener: () => void): unknown }, next: () => void): void {
  tracer.startActiveSpan('POST /webhook', (span: Span) => {
    requestSpans.push(span.spanContext());
    finished.once('finish', () => span.end());
    next();
  });
}

type Start = (receiver: Receiver, handlers: WebhookHandlers) => Promise<RunningServer>;

const hosts: Record<string, Start> = {
  'node:http': (receiver, handlers) => {
    const handler = nodeHandler(receiver, handlers);
    return listen(createServer((req, res) => inRequestSpan(res, () => void handler(req, res))));
  },
  'Express 5': (receiver, handlers) => {
    const app = express5().use((_req, res, next) => inRequestSpan(res, next));
    return listen(createServer(app.all('/webhook', expressHandler(receiver, handlers))));
  },
  'Fastify 5': async (receiver, handlers) => {
    const app = fastify5();
    app.addHook('onRequest', (_request, reply, done) => inRequestSpan(reply.raw, done));
    await app.register(webhookPlugin, { receiver, handlers, path: '/webhook' });
    await app.ready();
    return listen(app.server);
  },
};

describe.each(Object.entries(hosts))('%s: the host’s active span inside the handler', (_name, start) => {
  it('is the active span there, and the parent of the handler’s own spans', async () => {
    exporter.reset();
    let active: string | undefined;
    const handlers: WebhookHandlers = {
      'article.sync': async () => {
        active = trace.getActiveSpan()?.spanContext().spanId;
        const query = tracer.startSpan('db.query');
        await turn();
        query.end();
        return { publishedUrl: 'https://blog.example.com/traced' };
      },
    };
    const server = await start(createReceiver({ token: TOKEN }), handlers);
    onTestFinished(() => server.close());
    const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'traced' } }) });
    expect(await send(`${server.url}/webhook`, delivery)).toEqual(answers.ok('https://blog.example.com/traced'));

    // The request span may still be open here (it ends on 'finish'); the query span ended before the answer.
    const request = requestSpans.at(-1);
    const query = exporter.getFinishedSpans().find((span) => span.name === 'db.query');
    expect(request).toBeDefined();
    expect(active).toBe(request?.spanId);
    expect(query?.parentSpanContext?.spanId).toBe(request?.spanId);
    expect(query?.spanContext().traceId).toBe(request?.traceId);
  });
});
