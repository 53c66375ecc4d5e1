import type { WebhookEvent } from '../../events/types.js';
import type { HeaderLookup } from '../../input/headers.js';
import type { LedgerEntry } from '../../ledger/ledger-row.js';
import { rowId } from '../../ledger/row-id.js';
import { type Answer, answerCode } from '../answers.js';

/** Claimed text is cut to this many characters: a refused request cannot fill the ledger with one field. */
const MAX_CLAIM = 200;
/** Bodies over this size are not parsed for what they claim: their head says enough. */
const MAX_PARSED = 1024 * 1024;
const decoder = new TextDecoder();

/** What one answered request becomes in the ledger, before its store assigns the copy number. */
export interface EntryTimes {
  receivedAt: number;
  now: number;
}

/** The row of a verified delivery: what the envelope said and what was answered. */
export function verifiedEntry(
  event: WebhookEvent,
  answer: Answer,
  times: EntryTimes,
  recoveredFrom?: string,
): LedgerEntry {
  const article = event.type === 'article.sync' || event.type === 'article.trash' ? event.article : undefined;
  const profile = (event.payload as { profile?: { id?: unknown } } | undefined)?.profile;
  const url = (answer.body as { published_url?: unknown }).published_url;
  const entry: LedgerEntry = {
    id: rowId(times.receivedAt),
    receivedAt: times.receivedAt,
    durationMs: Math.max(0, times.now - times.receivedAt),
    verified: true,
    deliveryId: event.deliveryId,
    event: event.name,
    articleId: article ? article.id : null,
    slug: article ? article.slug : null,
    articleStatus: event.type === 'article.sync' ? String(event.article.status) : null,
    profileId: typeof profile?.id === 'string' ? profile.id : null,
    tenant: event.tenant?.id ?? null,
    status: answer.status,
    code: answerCode(answer),
    tokenIndex: event.tokenIndex,
    publishedUrl: typeof url === 'string' ? url : null,
  };
  if (recoveredFrom !== undefined) entry.recoveredFrom = recoveredFrom;
  return entry;
}

/**
 * The row of a refused request: unverified, with what its headers and (when read) its body
 * claimed, cut short. Never the token, the signature or any other header value.
 */
export function refusedEntry(
  headers: HeaderLookup,
  body: Uint8Array | undefined,
  answer: Answer,
  times: EntryTimes & { id?: string },
): LedgerEntry {
  const claims = body === undefined ? undefined : claimsOf(body);
  const article = record(claims?.article);
  return {
    id: times.id ?? rowId(times.receivedAt),
    receivedAt: times.receivedAt,
    durationMs: Math.max(0, times.now - times.receivedAt),
    verified: false,
    deliveryId: clip(headers('x-service-delivery-id')),
    event: clip(claims?.event) ?? clip(headers('x-service-event')),
    articleId: clip(article?.id),
    slug: clip(article?.slug),
    articleStatus: clip(article?.status),
    profileId: clip(record(claims?.profile)?.id),
    tenant: null,
    status: answer.status,
    code: answerCode(answer),
    tokenIndex: null,
    publishedUrl: null,
  };
}

function claimsOf(body: Uint8Array): Record<string, unknown> | undefined {
  if (body.byteLength === 0 || body.byteLength > MAX_PARSED) return undefined;
  try {
    return record(JSON.parse(decoder.decode(body)));
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function clip(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  return value.length > MAX_CLAIM ? `${value.slice(0, MAX_CLAIM)}…` : value;
}
