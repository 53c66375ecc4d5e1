import type { WebhookErrorCode } from 'webhook-cms-receiver';
import type { BodyTransformation } from './transformations.js';

/** The contract's checks, in the order the receiver runs them. */
export type DiagnosisCheckName =
  | 'body size'
  | 'token'
  | 'timestamp format'
  | 'timestamp window'
  | 'signature'
  | 'payload'
  | 'delivery id';

/** One check of the contract, run on its own (as if the others had passed). */
export interface DiagnosisCheck {
  name: DiagnosisCheckName;
  /** `skip` when the capture lacks what the check needs (a redacted token, a missing body). */
  outcome: 'pass' | 'fail' | 'skip';
  /** What was found. Never the token, a signature or the payload. */
  detail: string;
}

/** What the receiver answers to this delivery, from `createReceiver(...).verify`. */
export interface DiagnosisVerdict {
  /** 200 when it verifies; null only when the capture has no body and the headers pass. */
  status: number | null;
  /** The stable error code of the refusal, null when it verifies. */
  code: WebhookErrorCode | null;
  /** The public `error` text the endpoint answers. */
  error: string | null;
  /** The receiver's internal reason (what `onRejected` gets). */
  reason: string | null;
}

/** The likely causes a diagnosis can name. */
export type DiagnosisCauseKind =
  | 'body-too-large'
  | 'body-lost'
  | 'token-missing'
  | 'token-scheme'
  | 'token-repeated'
  | 'token-whitespace'
  | 'token-mismatch'
  | 'token-other-configuration'
  | 'authorization-replaced'
  | 'timestamp-missing'
  | 'timestamp-format'
  | 'timestamp-milliseconds'
  | 'clock-offset'
  | 'signature-missing'
  | 'signature-header'
  | 'signature-format'
  | 'body-transformed'
  | 'timestamp-changed'
  | 'signed-message'
  | 'signature-other-secret'
  | 'signature-unexplained'
  | 'payload-invalid'
  | 'delivery-id-missing'
  | 'unknown';

/** Why the receiver refuses the delivery, as far as the bytes tell, and what to change. */
export interface DiagnosisCause {
  kind: DiagnosisCauseKind;
  message: string;
  fix: string;
  /** For `body-transformed`: the change that explains the signature. */
  transformation?: BodyTransformation;
  /** For `clock-offset` and `timestamp-changed`: now (or the signed timestamp) minus the header's, in seconds. */
  offsetSeconds?: number;
  /** For `signature-header`: where the signature was found instead. */
  header?: string;
}

/** What {@link diagnoseDelivery} found. */
export interface Diagnosis {
  /** True when the receiver accepts the delivery. */
  ok: boolean;
  verdict: DiagnosisVerdict;
  checks: DiagnosisCheck[];
  /** The likely cause of the refusal; absent when `ok`. */
  cause?: DiagnosisCause;
}

/** A check's finding and, when it fails, the cause it names. */
export interface Finding {
  check: DiagnosisCheck;
  cause?: DiagnosisCause;
}

export const pass = (name: DiagnosisCheckName, detail: string): DiagnosisCheck => ({ name, outcome: 'pass', detail });
export const fail = (name: DiagnosisCheckName, detail: string): DiagnosisCheck => ({ name, outcome: 'fail', detail });
export const skip = (name: DiagnosisCheckName, detail: string): DiagnosisCheck => ({ name, outcome: 'skip', detail });
