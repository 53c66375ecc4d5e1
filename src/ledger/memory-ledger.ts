import { createLedger } from './create-ledger.js';
import type { Ledger } from './ledger.js';
import type { LedgerOptions } from './ledger-options.js';
import { memoryLedgerStore } from './memory-ledger-store.js';

/**
 * A delivery ledger in this process's memory: for tests and development, or one instance
 * that may lose its history on restart. For production use `postgresLedger`, `redisLedger` or
 * `dynamoDbLedger`, which every instance shares.
 *
 * @example
 * ```ts
 * import { createReceiver, memoryLedger } from 'webhook-cms-receiver';
 * const ledger = memoryLedger();
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * // … after some deliveries:
 * const { rows } = await ledger.list({ limit: 10 });
 * ```
 */
export function memoryLedger(options: LedgerOptions = {}): Ledger {
  return createLedger(memoryLedgerStore(options.now ? { now: options.now } : {}), options);
}
