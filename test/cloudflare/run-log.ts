import type { DurableObjectStateLike } from 'webhook-cms-receiver/cloudflare';

/** One article's log: every handler run, in order, and the most that ever ran at once. */
interface ArticleLog {
  runs: string[];
  running: number;
  maxOverlap: number;
}

/**
 * A Durable Object the test Worker's handlers report to (`POST /enter`, `POST /leave` with
 * `{ article, run }`), so the test can count handler runs across every request workerd
 * served; `GET /report?article=…` answers the article's log. One object, one request at a
 * time: its counts are exact.
 */
export class RunLog {
  constructor(private readonly state: DurableObjectStateLike) {}

  async fetch(request: Request): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === '/report') return Response.json(await this.read(searchParams.get('article') ?? ''));
    const { article, run } = (await request.json()) as { article: string; run: string };
    const log = await this.read(article);
    if (pathname === '/enter') {
      log.runs.push(run);
      log.running += 1;
      log.maxOverlap = Math.max(log.maxOverlap, log.running);
    } else {
      log.running -= 1;
    }
    await this.state.storage.put({ [article]: log });
    return Response.json(log);
  }

  private async read(article: string): Promise<ArticleLog> {
    const found = (await this.state.storage.get([article])).get(article) as ArticleLog | undefined;
    return found ?? { runs: [], running: 0, maxOverlap: 0 };
  }
}
