import type { Send } from './calls.js';
import { type Item, n } from './items.js';
import { updateItem } from './ledger-calls.js';
import type { LedgerKeys } from './ledger-items.js';

/** What the ledger's steps share. */
export interface LedgerContext {
  send: Send;
  table: string;
  keys: LedgerKeys;
  retentionMs: number;
  /** The days that hold rows, newest first, from the meta item. */
  days(): Promise<string[]>;
}

/** Adds to the meta item's counts (negative to take away) and its days. */
export async function addToMeta(context: LedgerContext, bounds: Map<string, number>, days: string[]): Promise<void> {
  const names: Record<string, string> = {};
  const values: Item = {};
  const adds: string[] = [];
  let i = 0;
  for (const [bound, count] of bounds) {
    if (count === 0) continue;
    names[`#b${i}`] = bound;
    values[`:b${i}`] = n(count);
    adds.push(`#b${i} :b${i}`);
    i++;
  }
  if (days.length > 0) {
    names['#days'] = 'days';
    values[':days'] = { SS: days };
    adds.push('#days :days');
  }
  if (adds.length === 0) return;
  await updateItem(context.send, context.table, {
    Key: context.keys.meta,
    UpdateExpression: `ADD ${adds.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}
