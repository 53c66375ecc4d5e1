import type { SignedDelivery } from '../sender/sign-delivery.js';
import type { Exchange } from './exchange.js';

// The row builders (checks.ts, writes.ts) and the probe that runs them share these types; they
// live below all three so the folder imports one way.

/** One check of the probe. */
export interface ProbeRow {
  /** e.g. `test event`, `bad signature`, `answer time`. */
  name: string;
  /** `warn`: differs from the contract in a way the service does not notice. */
  result: 'pass' | 'warn' | 'fail';
  /** What was sent back and why it passes or not. Never the token. */
  reason: string;
}

/** What the row builders share: where to send, with what, and the record of every answer. */
export interface ProbeContext {
  url: string;
  token: string;
  timeoutMs: number;
  /** The profile written articles name; undefined: the factories' default. */
  profile: { id: string; domain: string } | undefined;
  post(row: string, delivery: SignedDelivery): Promise<Exchange>;
  get(row: string): Promise<Exchange>;
}
