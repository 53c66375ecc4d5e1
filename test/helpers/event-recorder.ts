import type { WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';

/** Handlers that record each `article.sync` and `test` event and let a test wait for the n-th one. */
export function eventRecorder() {
  const seen: WebhookEvent[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const record = (event: WebhookEvent) => {
    seen.push(event);
    for (const waiter of waiters.filter((w) => seen.length >= w.count)) waiter.resolve();
  };
  const until = (count: number) =>
    new Promise<void>((resolve) => (seen.length >= count ? resolve() : waiters.push({ count, resolve })));
  const handlers: WebhookHandlers = { 'article.sync': record, test: record };
  return { seen, until, handlers };
}
