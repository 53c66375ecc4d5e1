import type { LedgerLimits, LedgerRow } from 'webhook-cms-receiver';
import { n } from './items.js';
import { batchWrite, getItem, inParallel, queryItems, updateItem, type WriteRequest } from './ledger-calls.js';
import { boundOf, dayStart, idAt, rowOf } from './ledger-items.js';
import { addToMeta, type LedgerContext } from './ledger-context.js';

const DAY_MS = 86_400_000;

/**
 * Drops the rows received before `before`, then, when the meta item's counts say a bound is
 * passed, walks every day oldest first and drops the oldest rows past it (and sets the counts
 * to what the walk found, which mends any drift, e.g. rows DynamoDB's TTL deleted). Each
 * dropped row takes its lookup copies and one of its delivery's copies with it, so `copy`
 * keeps counting the rows on record.
 */
export async function pruneLedger(context: LedgerContext, limits: LedgerLimits): Promise<number> {
  const { send, table, keys } = context;
  const meta = await getItem(send, table, keys.meta);
  const days = [...(meta?.days?.SS ?? [])].sort();
  const doomed: LedgerRow[] = [];
  const emptied: string[] = [];
  for (const day of days) {
    if (dayStart(day) >= limits.before) break;
    const range = {
      pk: keys.day(dayStart(day)),
      below: idAt(Math.ceil(limits.before)),
      newestFirst: false,
      pageSize: 1000,
    };
    for await (const item of queryItems(send, table, range)) {
      const row = rowOf(item);
      if (row) doomed.push(row);
    }
    if (dayStart(day) + DAY_MS <= limits.before) emptied.push(day);
  }
  const counts = new Map<string, number>();
  for (const [name, value] of Object.entries(meta ?? {})) {
    if (name === 'u' || name === 'v' || name.startsWith('v=')) counts.set(name, Number(value.N ?? 0));
  }
  for (const row of doomed) counts.set(boundOf(row), (counts.get(boundOf(row)) ?? 0) - 1);
  const past = [...counts].some(
    ([bound, count]) => count > (bound === 'u' ? limits.maxRefusedRows : limits.maxRowsPerTenant),
  );
  let found: Map<string, number> | undefined;
  if (past) found = await dropPastBounds(context, days, limits, doomed);

  await dropRows(context, doomed);
  const taken = new Map<string, number>();
  for (const row of doomed) taken.set(boundOf(row), (taken.get(boundOf(row)) ?? 0) - 1);
  if (found) await setCounts(context, counts, found);
  else await addToMeta(context, taken, []);
  if (emptied.length > 0) {
    await updateItem(send, table, {
      Key: keys.meta,
      UpdateExpression: 'DELETE #days :days',
      ExpressionAttributeNames: { '#days': 'days' },
      ExpressionAttributeValues: { ':days': { SS: emptied } },
    });
  }
  return doomed.length;
}

/**
 * Walks every row newest first, keeping the newest `maxRefusedRows` refusals and
 * `maxRowsPerTenant` verified rows per tenant; the others join `doomed`. Resolves to the rows
 * per bound that remain.
 */
async function dropPastBounds(
  context: LedgerContext,
  days: string[],
  limits: LedgerLimits,
  doomed: LedgerRow[],
): Promise<Map<string, number>> {
  const already = new Set(doomed.map((row) => row.id));
  const kept = new Map<string, number>();
  for (const day of [...days].reverse()) {
    const range = { pk: context.keys.day(dayStart(day)), newestFirst: true, pageSize: 1000 };
    for await (const item of queryItems(context.send, context.table, range)) {
      const row = rowOf(item);
      if (!row || already.has(row.id)) continue;
      const bound = boundOf(row);
      const count = (kept.get(bound) ?? 0) + 1;
      if (count > (bound === 'u' ? limits.maxRefusedRows : limits.maxRowsPerTenant)) doomed.push(row);
      else kept.set(bound, count);
    }
  }
  return kept;
}

/** Deletes each row's items and takes it off its delivery's copy count. */
async function dropRows(context: LedgerContext, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { keys } = context;
  const requests: WriteRequest[] = [];
  const copies = new Map<string, number>();
  for (const row of rows) {
    for (const pk of [keys.day(row.receivedAt), ...(await keys.indexes(row))]) {
      requests.push({ DeleteRequest: { Key: { pk: { S: pk }, sk: { S: row.id } } } });
    }
    if (row.deliveryId !== null) {
      const pk = await keys.copy(row);
      copies.set(pk, (copies.get(pk) ?? 0) + 1);
    }
  }
  await batchWrite(context.send, context.table, requests);
  await inParallel([...copies], async ([pk, count]) => {
    await updateItem(context.send, context.table, {
      Key: { pk: { S: pk }, sk: { S: 'copy' } },
      UpdateExpression: 'ADD #copies :minus',
      ExpressionAttributeNames: { '#copies': 'copies' },
      ExpressionAttributeValues: { ':minus': n(-count) },
    });
  });
}

/** Sets every bound's count to what the walk kept (0 for a bound it found no row of). */
async function setCounts(context: LedgerContext, before: Map<string, number>, found: Map<string, number>) {
  const names: Record<string, string> = {};
  const values: Record<string, { N: string }> = {};
  const sets: string[] = [];
  let i = 0;
  for (const bound of new Set([...before.keys(), ...found.keys()])) {
    names[`#b${i}`] = bound;
    values[`:b${i}`] = n(found.get(bound) ?? 0) as { N: string };
    sets.push(`#b${i} = :b${i}`);
    i++;
  }
  if (sets.length === 0) return;
  await updateItem(context.send, context.table, {
    Key: context.keys.meta,
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}
