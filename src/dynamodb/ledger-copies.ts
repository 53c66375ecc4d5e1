import type { LedgerEntry } from 'webhook-cms-receiver';
import { n, ttlOf } from './items.js';
import { inParallel, updateItem } from './ledger-calls.js';
import { addToMeta, type LedgerContext } from './ledger-context.js';
import { boundOf, dayOf, expiryOf } from './ledger-items.js';

/** Rows whose copy this process remembers, so a batch written again is counted once. */
const REMEMBERED = 10_000;

/**
 * Assigns each entry its `copy`: one UpdateItem ADD per tenant and delivery id in the batch
 * (the counter's new value gives the batch's copies; 8 at once), beside one update of the meta
 * item (days with rows, rows per prune bound). A row counted already keeps the copy it got:
 * the ledger writes a batch again when its answer was lost, and the counters must not count
 * it twice. Resolves to the copies, in the entries' order.
 */
export function copyCounter(context: LedgerContext): (entries: readonly LedgerEntry[]) => Promise<number[]> {
  const assigned = new Map<string, number>();
  const remember = (id: string, copy: number) => {
    assigned.set(id, copy);
    if (assigned.size > REMEMBERED) assigned.delete(assigned.keys().next().value!);
  };
  return async (entries) => {
    const { send, table, keys, retentionMs } = context;
    const copies = entries.map((entry) => assigned.get(entry.id) ?? 0);
    const byDelivery = new Map<string, number[]>();
    const days = new Set<string>();
    const bounds = new Map<string, number>();
    const fresh: number[] = [];
    for (const [i, entry] of entries.entries()) {
      days.add(dayOf(entry.receivedAt));
      if (assigned.has(entry.id)) continue;
      fresh.push(i);
      bounds.set(boundOf(entry), (bounds.get(boundOf(entry)) ?? 0) + 1);
      if (entry.deliveryId === null) continue;
      const pk = await keys.copy(entry);
      const at = byDelivery.get(pk);
      if (at) at.push(i);
      else byDelivery.set(pk, [i]);
    }
    const counted = inParallel([...byDelivery], async ([pk, at]) => {
      const attributes = await updateItem(send, table, {
        Key: { pk: { S: pk }, sk: { S: 'copy' } },
        UpdateExpression: 'SET #ttl = :ttl ADD #copies :count',
        ExpressionAttributeNames: { '#ttl': 'expiresAt', '#copies': 'copies' },
        ExpressionAttributeValues: { ':ttl': ttlOf(expiryOf(retentionMs)), ':count': n(at.length) },
      });
      const total = Number(attributes.copies?.N ?? at.length);
      at.forEach((index, j) => {
        copies[index] = Math.max(1, total - at.length + 1 + j);
      });
    });
    await Promise.all([counted, addToMeta(context, bounds, [...days])]);
    for (const i of fresh) remember(entries[i]!.id, copies[i]!);
    return copies;
  };
}
