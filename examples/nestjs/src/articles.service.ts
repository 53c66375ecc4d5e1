import type { WebhookHandlers } from 'webhook-cms-receiver';
import { isPublic } from 'webhook-cms-receiver/publish';

/** What {@link ArticlesService} needs from the app. */
export interface ArticlesOptions {
  /** Base of the `published_url` answered for each public article, e.g. `https://blog.example.com`. */
  publicBaseUrl: string;
  /** Where each event is logged, one line each. */
  log: (line: string) => void;
}

/** An article as this starter keeps it. */
export interface StoredArticle {
  slug: string;
  title: string;
  status: string;
  publishedUrl: string;
}

/**
 * Your publishing code. This starter keeps articles in memory; replace the bodies of the
 * handlers with writes to your database or CMS. Verification, replay protection and dedup
 * happen before any handler runs.
 */
export class ArticlesService {
  private readonly articles = new Map<string, StoredArticle>();
  private readonly base: string;

  constructor(private readonly options: ArticlesOptions) {
    this.base = options.publicBaseUrl.replace(/\/+$/, '');
  }

  /** The webhook handlers, one per event; what `article.sync` returns is answered as `published_url`. */
  readonly handlers: WebhookHandlers = {
    'article.sync': ({ article, deliveryId }) => {
      this.options.log(`sync  ${article.slug} (${article.status}) "${article.title}" [${deliveryId}]`);
      // Every status change arrives, drafts included: keep and link only what is public now (a
      // scheduled article is not yet); one that stopped being public is taken down.
      if (!isPublic(article)) {
        this.articles.delete(article.slug);
        return;
      }
      const publishedUrl = `${this.base}/${encodeURIComponent(article.slug)}`;
      this.articles.set(article.slug, {
        slug: article.slug,
        title: article.title,
        status: article.status,
        publishedUrl,
      });
      return { publishedUrl };
    },
    'article.trash': ({ article, deliveryId }) => {
      this.articles.delete(article.slug);
      this.options.log(`trash ${article.slug} [${deliveryId}]`);
    },
    test: () => this.options.log('test  Test Connection received'),
    unknown: ({ name }) => this.options.log(`skip  unknown event ${name}`),
  };

  /** Every public article received so far. */
  list(): StoredArticle[] {
    return [...this.articles.values()];
  }

  /** Articles whose title contains `query`, ignoring case. */
  search(query: string): StoredArticle[] {
    const needle = query.toLowerCase();
    return this.list().filter((article) => article.title.toLowerCase().includes(needle));
  }
}
