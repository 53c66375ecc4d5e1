import { Body, Controller, Get, Inject, Post } from '@nestjs/common';
import { ArticlesService, type StoredArticle } from './articles.service.js';

/** The app's own routes, behind Nest's usual JSON body parser. */
@Controller('articles')
export class ArticlesController {
  // An explicit @Inject: the starter then also runs where decorator metadata is not emitted (esbuild, tsx).
  constructor(@Inject(ArticlesService) private readonly articles: ArticlesService) {}

  @Get()
  list(): StoredArticle[] {
    return this.articles.list();
  }

  @Post('search')
  search(@Body() body: { query?: string }): StoredArticle[] {
    return this.articles.search(body.query ?? '');
  }
}
