import type { Diagnosis, DiagnosisCause, DiagnosisCheck, RecordedOutcome } from '../diagnose/index.js';
import type { WebhookErrorCode } from 'webhook-cms-receiver';

/** The public `error` text of each code the receiver refuses with, as the contract's table has it. */
const ERRORS: Readonly<Record<string, string>> = {
  payload_too_large: 'Payload too large',
  invalid_token: 'Invalid token',
  invalid_timestamp: 'Invalid timestamp',
  request_expired: 'Request expired',
  invalid_signature: 'Invalid signature',
  invalid_payload: 'Invalid payload',
  missing_delivery_id: 'Missing delivery id',
  invalid_delivery_id: 'Invalid delivery id',
};

/**
 * The diagnosis, completed with what the recording receiver answered. An inspector record of a
 * refused token holds no token (redacted) and often no body (refused before it was read), so
 * the bytes alone cannot tell; the receiver's own reason, recorded at the time, can.
 */
export function withRecordedOutcome(diagnosis: Diagnosis, recorded: RecordedOutcome | undefined): Diagnosis {
  const refused = recorded && recorded.status >= 400 && recorded.status < 500 && recorded.code !== undefined;
  // A refusal the bytes explain keeps its detailed diagnosis.
  if (!refused || (diagnosis.verdict.status !== null && diagnosis.verdict.status !== 200)) return diagnosis;
  const code = recorded.code!;
  const verdict = {
    status: recorded.status,
    code: code as WebhookErrorCode,
    error: ERRORS[code] ?? null,
    reason: recorded.reason ?? null,
  };
  const checks = diagnosis.checks.map(
    (check): DiagnosisCheck =>
      code === 'invalid_token' && check.name === 'token'
        ? { ...check, outcome: 'fail', detail: `refused when recorded: ${recorded.reason ?? code}` }
        : check,
  );
  return { ok: false, verdict, checks, cause: causeOf(code, recorded.reason) };
}

function causeOf(code: string, reason: string | undefined): DiagnosisCause {
  const said = reason ? `: ${reason}` : '';
  if (code === 'invalid_token')
    return {
      kind: 'token-mismatch',
      message: `The receiver refused the token when it recorded this delivery${said}. The record redacts Authorization, so which token was sent cannot be shown.`,
      fix: 'Give the sender the token this endpoint is configured with (its WEBHOOK_TOKEN, from Profile Settings → CMS Integration), or during a rotation configure both: createReceiver({ token: [current, next] }). Then send again: webhook-cms-receiver send checks it.',
    };
  return {
    kind: 'unknown',
    message: `The receiver refused it when it recorded this delivery (${code})${said}.`,
    fix: 'The capture lacks what the other checks need; capture the request with its body (sign --json, or the inspector with a token) to see more.',
  };
}
