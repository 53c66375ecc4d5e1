import type { Database } from './database.js';
import type { Sweeper } from './sweeper.js';
import type { Tables } from './table-sql.js';

/** What both modes are built from, once per store. */
export interface StoreSettings {
  db: Database;
  tables: Tables;
  leaseMs: number;
  retentionMs: number;
  /** Resolves once the tables exist (created on first use unless `createTable: false`). */
  ready: () => Promise<void>;
  /** Deletes expired rows every few claims (the store's claims share its count). */
  sweeper: Sweeper;
}
