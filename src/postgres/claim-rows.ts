import type { ClaimOutcome, StoredAnswer } from 'webhook-cms-receiver';
import type { Row } from './database.js';

/**
 * The statement's answer rows, one per source: `claimed` (the delivery's row after the
 * upsert), `article` (the article's newest mark, and whether this delivery may run for it)
 * and `known` (the delivery as this statement's snapshot saw it). A source that wrote or found nothing gives no row.
 */
export function claimRows(extra = 'NULL::text'): string {
  return `SELECT 'claimed' AS source, lease, answer, NULL::float8 AS newest, NULL::boolean AS entered, ${extra} AS restored
  FROM claimed
UNION ALL SELECT 'article', NULL, NULL, newest, entered, NULL FROM article
UNION ALL SELECT 'known', lease, answer, NULL, NULL, NULL FROM known`;
}

/** What a claim statement decided, and whether it left this lease holding an article it must free. */
export interface ClaimDecision {
  outcome: ClaimOutcome;
  /**
   * Plain mode only, and rare: the article let this delivery in, but the delivery itself
   * turned out done or taken by a copy that committed while the statement ran.
   */
  strayArticleHold: boolean;
}

/**
 * Reads the rows of a claim statement (sources `claimed`, `article`, `known`; see
 * `claimRows`). The delivery's own row after the upsert decides first: it is the newest
 * truth. Without it, the article held by another delivery means in-progress; without either,
 * the snapshot's row says done or in-progress.
 */
export function decideClaim(rows: readonly Row[], lease: string): ClaimDecision {
  const claimed = rows.find((row) => row.source === 'claimed');
  const article = rows.find((row) => row.source === 'article');
  const known = rows.find((row) => row.source === 'known');
  if (claimed) {
    const answer = answerOf(claimed.answer);
    if (claimed.lease === lease) {
      if (!answer) return { outcome: { state: 'claimed', lease }, strayArticleHold: false };
      // Recorded just now as stale by this very statement.
      return { outcome: { state: 'stale', newerTimestamp: Number(article?.newest) }, strayArticleHold: false };
    }
    const outcome: ClaimOutcome = answer ? { state: 'done', answer } : { state: 'in-progress' };
    return { outcome, strayArticleHold: article?.entered === true };
  }
  if (article) return { outcome: { state: 'in-progress' }, strayArticleHold: false };
  if (known) {
    const answer = answerOf(known.answer);
    return { outcome: answer ? { state: 'done', answer } : { state: 'in-progress' }, strayArticleHold: false };
  }
  throw new Error(
    'postgresDedupStore: the claim statement returned no row. Is the table shared with something that deletes ' +
      "this store's rows?",
  );
}

/** The stored answer from its `answer::text`, or undefined while the delivery is only claimed. */
function answerOf(text: unknown): StoredAnswer | undefined {
  if (text === null || text === undefined) return undefined;
  return JSON.parse(String(text)) as StoredAnswer;
}
