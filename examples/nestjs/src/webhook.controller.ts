import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Receiver } from 'webhook-cms-receiver';
import { webhookHandler as expressWebhook } from 'webhook-cms-receiver/express';
import { webhookHandler as fastifyWebhook } from 'webhook-cms-receiver/fastify';
import { ArticlesService } from './articles.service.js';

/** The injection token of the app's one `Receiver`. */
export const WEBHOOK_RECEIVER = Symbol('WEBHOOK_RECEIVER');

/**
 * `/webhook` on the Express platform. It needs the raw bytes: create the app with
 * `rawBody: true` (Nest then keeps them on `req.rawBody`, which the adapter reads).
 */
@Controller('webhook')
export class ExpressWebhookController {
  private readonly serve: ReturnType<typeof expressWebhook>;

  constructor(@Inject(WEBHOOK_RECEIVER) receiver: Receiver, @Inject(ArticlesService) articles: ArticlesService) {
    this.serve = expressWebhook(receiver, articles.handlers);
  }

  // @All: the receiver answers other methods 405 with `Allow: POST`. @Res: the adapter writes the answer.
  @All()
  handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.serve(req, res);
  }
}

/**
 * `/webhook` on the Fastify platform. It needs the raw bytes: create the app with
 * `rawBody: true` (Nest then keeps them on `request.rawBody`, which the adapter reads).
 */
@Controller('webhook')
export class FastifyWebhookController {
  private readonly serve: ReturnType<typeof fastifyWebhook>;

  constructor(@Inject(WEBHOOK_RECEIVER) receiver: Receiver, @Inject(ArticlesService) articles: ArticlesService) {
    this.serve = fastifyWebhook(receiver, articles.handlers);
  }

  @All()
  handle(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<unknown> {
    return this.serve(request, reply);
  }
}
