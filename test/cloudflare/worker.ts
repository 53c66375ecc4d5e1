// The Worker that durable-object.mjs bundles and runs in workerd: receivers on the Fetch
// adapter with durableObjectDedupStore, handlers that log every run (and how many overlap) in
// a second Durable Object, and a route that calls the store directly.
import {
  type ArticleSyncEvent,
  type ArticleTrashEvent,
  createReceiver,
  type DedupClaim,
  type DedupStore,
  type StoredAnswer,
} from 'webhook-cms-receiver';
import {
  type DurableObjectDedupStoreOptions,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  durableObjectDedupStore,
  WebhookDedupObject,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { RunLog } from './run-log.js';

export { RunLog, WebhookDedupObject };

/** The same class on the key-value storage backend (a class has one backend, so it needs its own name). */
export class KeyValueDedupObject extends WebhookDedupObject {}

/** The same class, plus a GET that lists what it stores and its alarm, to watch retention happen. */
export class InspectedDedupObject extends WebhookDedupObject {
  private readonly inspected: DurableObjectStateLike;
  constructor(state: DurableObjectStateLike, env: unknown) {
    super(state, env);
    this.inspected = state;
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.method !== 'GET') return super.fetch(request);
    const storage = this.inspected.storage;
    const keys = [...(await storage.list({ prefix: '' })).keys()];
    return Response.json({ keys, alarm: await storage.getAlarm() });
  }
}

type Namespace = DurableObjectNamespaceLike;

interface Env {
  WEBHOOK_TOKEN: string;
  DEDUP: Namespace;
  DEDUP_KV: Namespace;
  DEDUP_INSPECTED: Namespace;
  RUNS: Namespace;
}

/** The receivers, by path: the store's options and whether ordering is on. */
const ROUTES: Record<string, { binding: keyof Env; ordering: boolean; options?: DurableObjectDedupStoreOptions }> = {
  '/webhook': { binding: 'DEDUP', ordering: true },
  '/webhook-plain': { binding: 'DEDUP', ordering: false },
  '/webhook-kv': { binding: 'DEDUP_KV', ordering: true },
  '/webhook-short-lease': { binding: 'DEDUP', ordering: true, options: { leaseMs: 300 } },
};

/** A handler waits as long as its article's slug says (`…-wait-800`), so copies overlap it. */
function waitOf(slug: string): number {
  return Number(/-wait-(\d+)$/.exec(slug)?.[1] ?? 0);
}

/** A stub as the runtime really types it, which the package's narrower `DurableObjectStubLike` need not say. */
type Stub = { fetch(url: string, init?: RequestInit): Promise<Response> };

function stubOf(namespace: Namespace, name: string): Stub {
  return namespace.get(namespace.idFromName(name)) as unknown as Stub;
}

async function logged(env: Env, event: ArticleSyncEvent | ArticleTrashEvent): Promise<void> {
  const entry = { article: event.article.id, run: `${event.type}@${event.timestamp}` };
  const post = (path: string) =>
    stubOf(env.RUNS, 'log').fetch(`https://runs.invalid/${path}`, { method: 'POST', body: JSON.stringify(entry) });
  await post('enter');
  try {
    await new Promise((resolve) => setTimeout(resolve, waitOf(event.article.slug)));
  } finally {
    await post('leave');
  }
}

const handlers = (env: Env) => ({
  'article.sync': async (event: ArticleSyncEvent) => {
    await logged(env, event);
    return { publishedUrl: `https://blog.example.com/${event.article.slug}` };
  },
  'article.trash': (event: ArticleTrashEvent) => logged(env, event),
});

/** A direct store call: `{ binding, options, op, claim, lease?, answer? }` → `{ result }` or `{ thrown }`. */
async function callStore(env: Env, request: Request): Promise<Response> {
  const call = (await request.json()) as {
    binding: string;
    options?: DurableObjectDedupStoreOptions;
    op: 'claim' | 'renew' | 'complete' | 'release';
    claim: DedupClaim;
    lease?: string;
    answer?: StoredAnswer;
  };
  try {
    const store: DedupStore = durableObjectDedupStore(env[call.binding as keyof Env] as Namespace, call.options);
    const result =
      call.op === 'claim'
        ? await store.claim(call.claim)
        : call.op === 'renew'
          ? await store.renew!(call.claim, call.lease!)
          : call.op === 'complete'
            ? await store.complete(call.claim, call.lease!, call.answer!)
            : await store.release(call.claim, call.lease!);
    return Response.json({ result: result ?? null });
  } catch (error) {
    return Response.json({ thrown: error instanceof Error ? error.message : String(error) });
  }
}

const receivers = new Map<string, (request: Request) => Promise<Response>>();

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === '/store') return callStore(env, request);
    if (pathname === '/runs') return stubOf(env.RUNS, 'log').fetch(`https://runs.invalid/report?${searchParams}`);
    // The object's name as the store gives it: `delivery:<id>` or `article:<id>`.
    if (pathname === '/inspect')
      return stubOf(env.DEDUP_INSPECTED, searchParams.get('name')!).fetch('https://x.invalid/');
    const route = ROUTES[pathname];
    if (!route) return new Response('Not found', { status: 404 });
    let handle = receivers.get(pathname);
    if (!handle) {
      const dedup = durableObjectDedupStore(env[route.binding] as Namespace, route.options);
      handle = webhookHandler(
        createReceiver({ token: env.WEBHOOK_TOKEN, ordering: route.ordering, dedup }),
        handlers(env),
      );
      receivers.set(pathname, handle);
    }
    return handle(request);
  },
};
