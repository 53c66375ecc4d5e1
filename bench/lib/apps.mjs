// The HTTP bench's apps, one per framework, each with three routes: /ours is the adapter; /bare
// does the limit's work inline, as a hand-written route in that framework would; /ours-als is
// the adapter behind the host's own AsyncLocalStorage, entered per request before the adapter
// the way a host's request-id or tracing middleware does, with a handler that fails unless it
// sees that store. Started one at a time by name, so a process can serve one framework alone
// (bench/icount does).

import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import { Hono } from 'hono';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as fetchHandler } from 'webhook-cms-receiver/fetch';
import { webhookHandler as honoHandler } from 'webhook-cms-receiver/hono';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { TOKEN } from './deliveries.mjs';

// Throughput of one repeated delivery: with dedup on, every copy after the first would be
// answered from the store without running the handler, so the comparison turns it off.
const receiver = createReceiver({ token: TOKEN, dedup: false });
const handlers = { 'article.sync': () => {} };

const host = new AsyncLocalStorage();
let requests = 0;
/** A per-request store, as a host's middleware makes one. */
const hostStore = () => ({ requestId: ++requests });
/** A lost host context would pass silently; a 500 stops the bench instead. */
const hostHandlers = {
  'article.sync': () => {
    if (host.getStore()?.requestId === undefined) throw new Error("the handler lost the host's AsyncLocalStorage");
  },
};
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

/** The limit's work in a plain `node:http` listener: buffer the body, check, answer. */
function bareNode(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const ok = limitAccepts(req.headers, Buffer.concat(chunks));
    res.writeHead(ok ? 200 : 403, JSON_TYPE).end(ok ? OK : '{"error":"Invalid signature"}');
  });
}

function nodeApp() {
  const ours = nodeHandler(receiver, handlers);
  const oursHost = nodeHandler(receiver, hostHandlers);
  return createServer((req, res) => {
    if (req.url === '/ours') ours(req, res);
    else if (req.url === '/ours-als') host.run(hostStore(), oursHost, req, res);
    else bareNode(req, res);
  });
}

function expressApp(express) {
  const app = express();
  app.post('/ours', expressHandler(receiver, handlers));
  app.post('/bare', bareNode);
  // Last, so neither /ours nor /bare (whose instructions bench/icount counts) walks past its layer.
  app.post('/ours-als', (_req, _res, next) => host.run(hostStore(), next), expressHandler(receiver, hostHandlers));
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
  app.post('/ours-als', (_c, next) => host.run(hostStore(), next), honoHandler(receiver, hostHandlers));
  return app;
}

function fetchApp() {
  const ours = fetchHandler(receiver, handlers);
  const oursHost = fetchHandler(receiver, hostHandlers);
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
  return (request) => {
    if (request.url.endsWith('/ours')) return ours(request);
    if (request.url.endsWith('/ours-als')) return host.run(hostStore(), oursHost, request);
    return bare(request);
  };
}

/**
 * Fastify and Koa, when their adapters are built: each with a bare route that gets the raw
 * body the way a hand-written route in that framework would.
 */
async function optionalApps() {
  const apps = {};
  const fastifyAdapter = await import('webhook-cms-receiver/fastify').catch(() => ({}));
  if (typeof fastifyAdapter.webhookPlugin === 'function') {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    await app.register(fastifyAdapter.webhookPlugin, { receiver, handlers, path: '/ours' });
    await app.register(async (scope) => {
      scope.addHook('onRequest', (_request, _reply, done) => host.run(hostStore(), done));
      await scope.register(fastifyAdapter.webhookPlugin, { receiver, handlers: hostHandlers, path: '/ours-als' });
    });
    await app.register(async (scope) => {
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      scope.post('/bare', (request, reply) => {
        const ok = limitAccepts(request.headers, request.body);
        reply.code(ok ? 200 : 403).header('content-type', JSON_TYPE['content-type']);
        return reply.send(ok ? OK : '{"error":"Invalid signature"}');
      });
    });
    apps['Fastify 5'] = async () => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return app.server.address().port;
    };
  }
  const koaAdapter = await import('webhook-cms-receiver/koa').catch(() => ({}));
  if (typeof koaAdapter.webhookHandler === 'function') {
    const { default: Koa } = await import('koa');
    const ours = koaAdapter.webhookHandler(receiver, handlers);
    const oursHost = koaAdapter.webhookHandler(receiver, hostHandlers);
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.path === '/ours') return ours(ctx, next);
      if (ctx.path === '/ours-als') return host.run(hostStore(), oursHost, ctx, next);
      const body = await new Promise((resolve, reject) => {
        const chunks = [];
        ctx.req.on('data', (chunk) => chunks.push(chunk));
        ctx.req.on('end', () => resolve(Buffer.concat(chunks)));
        ctx.req.on('error', reject);
      });
      const ok = limitAccepts(ctx.req.headers, body);
      ctx.status = ok ? 200 : 403;
      ctx.type = 'application/json';
      ctx.body = ok ? OK : '{"error":"Invalid signature"}';
    });
    apps['Koa 3'] = () =>
      new Promise((resolve) => {
        const server = app.listen(0, '127.0.0.1', () => resolve(server.address().port));
        server.keepAliveTimeout = 60_000;
      });
  }
  return apps;
}

function listen(start) {
  return new Promise((resolve) => {
    const server = start((info) => resolve(info.port));
    server.keepAliveTimeout = 60_000;
  });
}

const STARTERS = {
  'node:http': () =>
    listen((ready) =>
      nodeApp().listen(0, '127.0.0.1', function () {
        ready(this.address());
      }),
    ),
  'Express 4': () =>
    listen((ready) =>
      expressApp(express4).listen(0, '127.0.0.1', function () {
        ready(this.address());
      }),
    ),
  'Express 5': () =>
    listen((ready) =>
      expressApp(express5).listen(0, '127.0.0.1', function () {
        ready(this.address());
      }),
    ),
  'Hono (node-server)': () =>
    listen((ready) => serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' }, ready)),
  'Fetch (node-server)': () => listen((ready) => serve({ fetch: fetchApp(), port: 0, hostname: '127.0.0.1' }, ready)),
};

/** Starts every framework's app (Fastify and Koa when their adapters are built): name → port. */
export async function startAll() {
  const ports = {};
  for (const [name, start] of Object.entries(STARTERS)) ports[name] = await start();
  for (const [name, start] of Object.entries(await optionalApps())) ports[name] = await start();
  return ports;
}

/** Starts one framework's app by its name in the tables; resolves to its port. */
export async function startOne(name) {
  const start = STARTERS[name] ?? (await optionalApps())[name];
  if (!start) throw new Error(`no bench app named ${JSON.stringify(name)}`);
  return start();
}
