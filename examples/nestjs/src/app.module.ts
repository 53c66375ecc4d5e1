import { type DynamicModule, Module, type Type } from '@nestjs/common';
import type { Receiver } from 'webhook-cms-receiver';
import { ArticlesController } from './articles.controller.js';
import { ArticlesService } from './articles.service.js';
import { ExpressWebhookController, FastifyWebhookController, WEBHOOK_RECEIVER } from './webhook.controller.js';

/** The HTTP platform Nest runs on. */
export type Platform = 'express' | 'fastify';

/** What {@link AppModule.forRoot} wires together. */
export interface AppModuleOptions {
  platform: Platform;
  receiver: Receiver;
  articles: ArticlesService;
  /** True to serve `/webhook` from a Nest controller, which needs the app created with `rawBody: true`. */
  webhookController: boolean;
}

/** The app: the articles routes, and the webhook controller for the platform when asked for. */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest module is a class, and forRoot is Nest's convention for one built from options.
export class AppModule {
  static forRoot({ platform, receiver, articles, webhookController }: AppModuleOptions): DynamicModule {
    const controllers: Type[] = [ArticlesController];
    if (webhookController)
      controllers.push(platform === 'fastify' ? FastifyWebhookController : ExpressWebhookController);
    return {
      module: AppModule,
      controllers,
      providers: [
        { provide: WEBHOOK_RECEIVER, useValue: receiver },
        { provide: ArticlesService, useValue: articles },
      ],
    };
  }
}
