import { articleSyncPayload, articleTrashPayload } from '../sender/factories.js';
import type { ProbeContext, ProbeRow } from './context.js';
import { answerText, type Exchange } from './exchange.js';
import { signDelivery } from '../sender/sign-delivery.js';

/** How many copies of one delivery id the concurrency row sends at once. */
const COPIES = 5;

/** The probe's article: a draft, clearly marked, so nothing looks published if the trash never arrives. */
function probeArticle() {
  const id = globalThis.crypto.randomUUID();
  const slug = `webhook-cms-probe-${id.slice(0, 8)}`;
  const text = 'Sent by webhook-cms-receiver probe --writes and trashed right after; safe to delete.';
  return {
    id,
    slug,
    title: `webhook-cms-receiver probe ${slug}`,
    status: 'draft' as const,
    content_markdown: `${text}\n`,
    content_html: `<p>${text}</p>`,
    meta_description: text,
    featured_image_url: null,
    tags: ['webhook-cms-probe'],
    scheduled_at: null,
    published_at: null,
  };
}

/**
 * The rows that write: a sync of a probe article, its redelivery, concurrent copies of one
 * delivery id, and a trash of the article at the end.
 */
export async function writeRows(ctx: ProbeContext, testAccepted: boolean): Promise<ProbeRow[]> {
  const names = ['sync', 'redelivered sync', 'concurrent copies', 'trash'];
  if (!testAccepted)
    return names.map((name) => ({
      name,
      result: 'fail',
      reason: 'not sent: the endpoint did not accept the test event',
    }));
  const article = probeArticle();
  const sync = signDelivery({ token: ctx.token, payload: articleSyncPayload({ article, ...profileOf(ctx) }) });
  const rows: ProbeRow[] = [];
  const first = await ctx.post('sync', sync);
  rows.push(draftSyncRow(first, ctx, `article ${article.slug} (a draft)`));
  const again = signDelivery({
    token: ctx.token,
    payload: sync.body,
    deliveryId: sync.headers['X-Service-Delivery-Id'],
  });
  rows.push(redeliveredRow(await ctx.post('redelivered sync', again), ctx));
  rows.push(await concurrentRow(ctx, String(sync.body)));
  const trash = signDelivery({
    token: ctx.token,
    payload: articleTrashPayload({ article: { id: article.id, slug: article.slug }, ...profileOf(ctx) }),
  });
  const gone = await ctx.post('trash', trash);
  const trashRow = accepted('trash', gone, ctx, `article ${article.slug}`);
  if (trashRow.result === 'fail')
    trashRow.reason += `; the probe article ${article.slug} may remain: delete it by hand`;
  rows.push(trashRow);
  return rows;
}

function accepted(name: string, answer: Exchange, ctx: ProbeContext, what: string): ProbeRow {
  const text = answerText(answer, ctx.url);
  if (answer.status === 200) return { name, result: 'pass', reason: `${what}: ${text}` };
  return { name, result: 'fail', reason: `${what}: ${text}; expected 200` };
}

/**
 * The probe article is a draft: accepted, but with no `published_url`, which the dashboard shows
 * as the article's live address (the contract: only for an article that is public).
 */
function draftSyncRow(answer: Exchange, ctx: ProbeContext, what: string): ProbeRow {
  const row = accepted('sync', answer, ctx, what);
  const url = (answer.body as { published_url?: unknown } | null)?.published_url;
  if (row.result !== 'pass' || url === undefined || url === null) return row;
  return {
    ...row,
    result: 'fail',
    reason: `${row.reason}: a published_url for a draft, which the dashboard shows as its live page; answer it only when isPublic(article) (webhook-cms-receiver/publish)`,
  };
}

const isDuplicate = (answer: Exchange) => (answer.body as { duplicate?: unknown } | null)?.duplicate === true;

function redeliveredRow(answer: Exchange, ctx: ProbeContext): ProbeRow {
  const name = 'redelivered sync';
  const text = answerText(answer, ctx.url);
  if (answer.status === 200 && isDuplicate(answer))
    return { name, result: 'pass', reason: `${text}; answered from the dedup store, the handler did not run again` };
  if (answer.status === 200)
    return {
      name,
      result: 'fail',
      reason: `${text}: no "duplicate": true, so the handler ran the same delivery id twice; deduplicate on X-Service-Delivery-Id`,
    };
  return { name, result: 'fail', reason: `${text}; expected 200 with "duplicate": true` };
}

/** Exactly one copy may run the handler; the others wait (409) or get the stored answer. */
async function concurrentRow(ctx: ProbeContext, body: string): Promise<ProbeRow> {
  const name = 'concurrent copies';
  const deliveryId = globalThis.crypto.randomUUID();
  const answers = await Promise.all(
    Array.from({ length: COPIES }, () => ctx.post(name, signDelivery({ token: ctx.token, payload: body, deliveryId }))),
  );
  const ran = answers.filter((a) => a.status === 200 && !isDuplicate(a)).length;
  const held = answers.filter((a) => a.status === 409 || (a.status === 200 && isDuplicate(a))).length;
  const statuses = answers.map((a) =>
    a.status === 200 && isDuplicate(a) ? '200 duplicate' : String(a.status ?? 'no answer'),
  );
  const seen = `${COPIES} copies of one delivery id at once: ${statuses.join(', ')}`;
  if (ran === 1 && held === COPIES - 1) return { name, result: 'pass', reason: `${seen}; the handler ran once` };
  if (ran > 1)
    return {
      name,
      result: 'fail',
      reason: `${seen}: the handler ran ${ran} times for one delivery id: no dedup, or a claim that is not atomic (check-then-set)`,
    };
  return { name, result: 'fail', reason: `${seen}: expected one 200 and the rest 409 or 200 with "duplicate": true` };
}

/** The profile override for the factories, when the probe was given one. */
function profileOf(ctx: ProbeContext): { profile?: { id: string; domain: string } } {
  return ctx.profile ? { profile: ctx.profile } : {};
}
