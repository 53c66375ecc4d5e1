import { DescribeTimeToLiveCommand, type DescribeTimeToLiveCommandOutput } from '@aws-sdk/client-dynamodb';
import { type Send, timeToLiveError } from './calls.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/**
 * Checks once per store, before its first call, that the table exists and has Time to Live on
 * the store's attribute: a missing table fails the first delivery with the fix (503, and the
 * error to `onError`) instead of every delivery with a bare ResourceNotFoundException, and a
 * table without TTL would grow forever without anyone noticing. A failed check is not
 * cached, so the next delivery checks again once the table is fixed.
 */
export function tableCheck(send: Send, table: string, enabled: boolean): () => Promise<void> {
  if (!enabled) return () => Promise.resolve();
  let checked: Promise<void> | undefined;
  let passed = false;
  return () => {
    if (passed) return Promise.resolve();
    checked ??= check(send, table).then(
      () => {
        passed = true;
      },
      (error: unknown) => {
        checked = undefined;
        throw error;
      },
    );
    return checked;
  };
}

async function check(send: Send, table: string): Promise<void> {
  const output = await send<DescribeTimeToLiveCommandOutput>(
    'read the Time to Live setting (dynamodb:DescribeTimeToLive)',
    new DescribeTimeToLiveCommand({ TableName: table }),
  );
  const { TimeToLiveStatus: status, AttributeName: attribute } = output.TimeToLiveDescription ?? {};
  const on = status === 'ENABLED' || status === 'ENABLING';
  if (!on || attribute !== DYNAMODB_TTL_ATTRIBUTE) throw timeToLiveError(table, status, attribute);
}
