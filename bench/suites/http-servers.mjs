// Child process of the HTTP bench: one server per framework, each with two routes. /ours is
// the adapter; /bare does the limit's work inline, as a hand-written route in that framework
// would. Sends the ports to the parent and serves until killed.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import { Hono } from 'hono';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as fetchHandler } from 'webhook-cms-receiver/fetch';
import { webhookHandler as honoHandler } from 'webhook-cms-receiver/hono';
import { TOKEN } from '../lib/deliveries.mjs';

// Throughput of one repeated delivery: with dedup on, every copy after the first would be
// answered from the store without running the handler, so the comparison turns it off.
const receiver = createReceiver({ token: TOKEN, dedup: false });
const handlers = { 'article.sync': () => {} };
const OK = '{"ok":true}';
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** The limit's checks on bytes already read: true when they pass. */
function limitAccepts(headers, body) {
  const signature = headers['x-service-signature'] ?? '';
  const expected = Buffer.from(signature.slice(7), 'hex');
  const mac = createHmac('sha256', TOKEN).update(`${headers['x-service-timestamp']}.`).update(body).digest();
  if (expected.length !== mac.length || !timingSafeEqual(mac, expected)) return false;
  JSON.parse(body.toString('utf8'));
  return true;
}

function expressApp(express) {
  const app = express();
  app.post('/ours', expressHandler(receiver, handlers));
  app.post('/bare', (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const ok = limitAccepts(req.headers, Buffer.concat(chunks));
      res.writeHead(ok ? 200 : 403, JSON_TYPE).end(ok ? OK : '{"error":"Invalid signature"}');
    });
  });
  return app;
}

function honoApp() {
  const app = new Hono();
  app.post('/ours', honoHandler(receiver, handlers));
  app.post('/bare', async (c) => {
    const body = Buffer.from(await c.req.arrayBuffer());
    const headers = {
      'x-service-signature': c.req.header('x-service-signature'),
      'x-service-timestamp': c.req.header('x-service-timestamp'),
    };
    return limitAccepts(headers, body) ? c.json({ ok: true }) : c.json({ error: 'Invalid signature' }, 403);
  });
  return app;
}

function fetchApp() {
  const ours = fetchHandler(receiver, handlers);
  const bare = async (request) => {
    const body = Buffer.from(await request.arrayBuffer());
    const headers = {
      'x-service-signature': request.headers.get('x-service-signature'),
      'x-service-timestamp': request.headers.get('x-service-timestamp'),
    };
    return limitAccepts(headers, body)
      ? Response.json({ ok: true })
      : Response.json({ error: 'Invalid signature' }, { status: 403 });
  };
  return (request) => (request.url.endsWith('/ours') ? ours(request) : bare(request));
}

function listen(start) {
  return new Promise((resolve) => {
    const server = start((info) => resolve(info.port));
    server.keepAliveTimeout = 60_000;
  });
}

const ports = {
  'Express 4': await listen((ready) =>
    expressApp(express4).listen(0, '127.0.0.1', function () {
      ready(this.address());
    }),
  ),
  'Express 5': await listen((ready) =>
    expressApp(express5).listen(0, '127.0.0.1', function () {
      ready(this.address());
    }),
  ),
  'Hono (node-server)': await listen((ready) =>
    serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' }, ready),
  ),
  'Fetch (node-server)': await listen((ready) => serve({ fetch: fetchApp(), port: 0, hostname: '127.0.0.1' }, ready)),
};
process.send({ ports });
// An orderly exit on SIGINT lets `--cpu-prof` write its profile when profiling a server.
process.on('SIGINT', () => process.exit(0));
