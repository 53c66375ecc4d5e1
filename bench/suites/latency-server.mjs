// Child process of the streaming latency bench: one node:http server with three routes for a
// 1 MiB delivery. /node is the node:http adapter and /express the Express 5 adapter, both on a
// receiver with its default memory store (every request carries a fresh delivery id); /bare is
// what a hand-written route does: buffer the whole body, then HMAC, compare and parse.
// Sends its port to the parent and serves until killed.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import express from 'express';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { TOKEN } from '../lib/deliveries.mjs';

const receiver = createReceiver({ token: TOKEN });
const handlers = { 'article.sync': () => {} };
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

function bare(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const expected = Buffer.from((req.headers['x-service-signature'] ?? '').slice(7), 'hex');
    const mac = createHmac('sha256', TOKEN).update(`${req.headers['x-service-timestamp']}.`).update(body).digest();
    const ok = expected.length === mac.length && timingSafeEqual(mac, expected);
    if (ok) JSON.parse(body.toString('utf8'));
    res.writeHead(ok ? 200 : 403, JSON_TYPE).end(ok ? '{"ok":true}' : '{"error":"Invalid signature"}');
  });
}

/**
 * For reference, not a target: a hand-written route that streams as far as it can, hashing
 * and UTF-8-decoding each chunk as it comes (StringDecoder carries characters split between
 * chunks), so only JSON.parse is left when the last byte is in.
 */
function streamingByHand(req, res) {
  const mac = createHmac('sha256', TOKEN).update(`${req.headers['x-service-timestamp']}.`);
  const decoder = new StringDecoder('utf8');
  let text = '';
  req.on('data', (chunk) => {
    mac.update(chunk);
    text += decoder.write(chunk);
  });
  req.on('end', () => {
    text += decoder.end();
    const expected = Buffer.from((req.headers['x-service-signature'] ?? '').slice(7), 'hex');
    const digest = mac.digest();
    const ok = expected.length === digest.length && timingSafeEqual(digest, expected);
    if (ok) JSON.parse(text);
    res.writeHead(ok ? 200 : 403, JSON_TYPE).end(ok ? '{"ok":true}' : '{"error":"Invalid signature"}');
  });
}

/** For reference: reads the body and throws it away, which is the transfer alone. */
function drain(req, res) {
  req.on('data', () => {});
  req.on('end', () => res.writeHead(200, JSON_TYPE).end('{"ok":true}'));
}

const routes = {
  '/drain': drain,
  '/by-hand': streamingByHand,
  '/bare': bare,
  '/node': nodeHandler(receiver, handlers),
  '/express': express().post('/express', expressHandler(receiver, handlers)),
};

const server = createServer((req, res) => routes[req.url](req, res));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('SIGINT', () => process.exit(0));
