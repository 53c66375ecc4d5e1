import type { WebhookEvent } from '../events/types.js';
import type { Answer } from './answers.js';

/**
 * One delivery as the receiver saw it, for development tools such as the inspector
 * (`createInspector` from `webhook-cms-receiver/testing`). `Authorization` is already
 * redacted; the body is the raw bytes as handed over (undefined when the request was refused
 * before its body was read).
 */
export interface InspectedDelivery {
  /** When the receiver got it, in milliseconds since the epoch (the receiver's clock). */
  receivedAt: number;
  /** Time from receipt to answer, handler included. */
  durationMs: number;
  method: string | undefined;
  headers: Record<string, string>;
  body: Uint8Array | string | undefined;
  answer: Answer;
  /** The verified event's name, type and delivery id, when it got that far. */
  event?: { name: string; type: WebhookEvent['type']; deliveryId: string | null };
  /** Why it was refused or failed: the stable code and the internal reason. */
  error?: { code: string; reason: string };
}
