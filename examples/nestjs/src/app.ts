import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createReceiver } from 'webhook-cms-receiver';
import { byteLimitText } from 'webhook-cms-receiver/adapter-kit';
import { webhookHandler as expressWebhook } from 'webhook-cms-receiver/express';
import { webhookPlugin } from 'webhook-cms-receiver/fastify';
import { AppModule, type Platform } from './app.module.js';
import { ArticlesService } from './articles.service.js';

/** How to build the app. */
export interface AppOptions {
  platform: Platform;
  /** The token from Profile Settings → CMS Integration. */
  token: string;
  /**
   * True (the default): Nest's JSON parser keeps the raw bytes and a Nest controller serves
   * `/webhook`. False: the webhook is served outside Nest's parser instead (see the README).
   */
  rawBody?: boolean;
  publicBaseUrl?: string;
  log?: (line: string) => void;
  /** False silences Nest's own start-up log. */
  nestLogs?: boolean;
}

/**
 * Creates the Nest app on the chosen platform, with the webhook at `/webhook`.
 *
 * @example
 * const app = await createApp({ platform: 'fastify', token: process.env.WEBHOOK_TOKEN });
 * await app.listen(3000);
 */
export async function createApp(options: AppOptions): Promise<INestApplication> {
  const { platform, rawBody = true } = options;
  const receiver = createReceiver({ token: options.token });
  const articles = new ArticlesService({
    publicBaseUrl: options.publicBaseUrl ?? 'https://blog.example.com',
    log: options.log ?? console.log,
  });
  const module = AppModule.forRoot({ platform, receiver, articles, webhookController: rawBody });
  const logger = options.nestLogs === false ? false : undefined;

  if (platform === 'fastify') {
    // Nest's JSON parser takes Fastify's bodyLimit: raise it to the receiver's (1 MiB otherwise).
    const adapter = new FastifyAdapter({ bodyLimit: receiver.maxBodyBytes });
    const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { rawBody, logger });
    // Without rawBody: the plugin serves /webhook in its own Fastify scope, with a raw-body
    // parser there; Nest's JSON parser stays on every other route.
    if (!rawBody) await app.register(webhookPlugin, { receiver, handlers: articles.handlers, path: '/webhook' });
    return app;
  }

  const app = await NestFactory.create<NestExpressApplication>(module, { rawBody, logger });
  // With rawBody, the JSON parser keeps the bytes on req.rawBody; its limit is 100kb otherwise.
  if (rawBody) app.useBodyParser('json', { limit: byteLimitText(receiver.maxBodyBytes) });
  // Without rawBody: mounted here, before the JSON parser that Nest adds when the app starts.
  else app.use('/webhook', expressWebhook(receiver, articles.handlers));
  return app;
}

/**
 * Creates the app and listens; `port: 0` picks a free port.
 *
 * @example
 * const { url, close } = await startServer({ platform: 'express', token, port: 3000 });
 */
export async function startServer({
  port = 3000,
  host = '127.0.0.1',
  ...options
}: AppOptions & { port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }> {
  const app = await createApp(options);
  await app.listen(port, host);
  const address = app.getHttpServer().address() as AddressInfo;
  return { url: `http://${host}:${address.port}`, close: () => app.close() };
}
