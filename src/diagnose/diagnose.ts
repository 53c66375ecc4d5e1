import {
  type BodyInput,
  createReceiver,
  type ReceiverSettings,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TOLERANCE_SECONDS,
  type HeadersInput,
  isWebhookError,
} from 'webhook-cms-receiver';
import { utf8Bytes } from './bytes.js';
import { envelopeFindings } from './envelope.js';
import { type HeaderValues, headerRecord, headerValues } from './headers.js';
import { type Diagnosis, type DiagnosisVerdict, type Finding, fail, pass, skip } from './result.js';
import { analyzeSignature } from './signature.js';
import { analyzeTimestamp } from './timestamp.js';
import { analyzeAuthorization, tokenCause } from './token.js';

/** Options of {@link diagnoseDelivery}: a captured request and the endpoint's configuration. */
export interface DiagnoseOptions {
  /** The request's headers as captured: a Fetch `Headers` or a plain object, any case. */
  headers: HeadersInput;
  /** The raw body as received. Leave it out when the capture holds none (refused before it was read). */
  body?: BodyInput;
  /** The endpoint's token (or tokens, during rotation): what its receiver is configured with. */
  token: string | readonly string[];
  /** When the receiver got the request, in milliseconds (or a Date). Default: now. */
  now?: number | Date;
  /** As configured on the receiver. Default 300. */
  toleranceSeconds?: number;
  /** As configured on the receiver. Default 10 MiB. */
  maxBodyBytes?: number;
}

const CHECK_OF_CODE: Readonly<Record<string, number>> = {
  payload_too_large: 0,
  invalid_token: 1,
  invalid_timestamp: 2,
  request_expired: 3,
  invalid_signature: 4,
  invalid_payload: 5,
  missing_delivery_id: 6,
};

/**
 * Explains why a receiver refuses a captured delivery: runs each check of the contract on its
 * own, takes the verdict from `createReceiver(...).verify`, and names the likely cause: a body
 * changed after signing (re-serialized JSON, a BOM, base64, line endings, a final newline,
 * Latin-1), a token from another configuration, a clock offset in seconds, a signature in the
 * wrong header or format. Nothing it returns contains the token or an HMAC made with it.
 *
 * @example
 * ```ts
 * const diagnosis = await diagnoseDelivery({ headers: req.headers, body: rawBody, token: process.env.WEBHOOK_TOKEN! });
 * if (!diagnosis.ok) console.warn(diagnosis.cause?.message, diagnosis.cause?.fix);
 * ```
 */
export async function diagnoseDelivery(options: DiagnoseOptions): Promise<Diagnosis> {
  const tokens = tokensOf(options?.token);
  const nowMs = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const settings = { now: () => nowMs, dedup: false as const, toleranceSeconds, maxBodyBytes };
  // Since contract v5 createReceiver refuses a token with a stray newline or space; an endpoint
  // that took one (an older version, another library) answered 401, so that is the verdict, and
  // the other checks run against the token as it was meant.
  const refusedToken = shapeProblem(tokens, settings);
  const receiver = createReceiver({ token: refusedToken ? tokens.map((t) => t.trim()) : tokens, ...settings });
  const headers = headerValues(options.headers);
  const body = options.body === undefined ? undefined : bytesOf(options.body);

  const authorization = analyzeAuthorization(headers, tokens);
  const time = analyzeTimestamp(headers, Math.floor(nowMs / 1000), toleranceSeconds);
  const signed = await analyzeSignature({
    headers,
    body,
    tokens,
    otherToken: authorization.otherToken,
    tokenRight: authorization.check.outcome === 'pass',
  });
  const envelope = await envelopeFindings(receiver, headers, body, tokens[0]!, nowMs);
  const findings: Finding[] = [
    sizeFinding(body, maxBodyBytes),
    { check: authorization.check, cause: tokenCause(authorization, signed.signer) },
    time.format,
    time.window,
    signed.finding,
    ...envelope,
  ];
  // A capture with a redacted token is judged as if the token were right: that check is reported as skipped.
  const asSent = authorization.redacted ? withToken(headers, tokens[0]!) : options.headers;
  const verdict: DiagnosisVerdict = refusedToken
    ? { status: 401, code: 'invalid_token', error: 'Invalid token', reason: refusedToken }
    : await verdictOf(receiver, asSent, body);
  const ok = verdict.status === 200;
  const cause = ok || verdict.code === null ? undefined : findings[CHECK_OF_CODE[verdict.code] ?? -1]?.cause;
  const fallback = { kind: 'unknown' as const, message: verdict.reason ?? 'unknown', fix: 'See the failed checks.' };
  return {
    ok,
    verdict,
    checks: findings.map((finding) => finding.check),
    ...(ok || verdict.status === null ? {} : { cause: cause ?? fallback }),
  };
}

/** Why createReceiver refuses these tokens, or undefined when it takes them. */
function shapeProblem(tokens: readonly string[], settings: Omit<ReceiverSettings, 'logger'>): string | undefined {
  try {
    createReceiver({ token: tokens, ...settings });
    return undefined;
  } catch (error) {
    if (tokens.every((token) => token.trim() === token)) throw error;
    return (error as Error).message;
  }
}

function tokensOf(token: unknown): readonly string[] {
  const tokens = typeof token === 'string' ? [token] : token;
  if (!Array.isArray(tokens) || tokens.length === 0 || tokens.some((t) => typeof t !== 'string' || t === ''))
    throw new TypeError(
      "diagnoseDelivery: token must be the endpoint's token, a non-empty string (or an array of them).",
    );
  return tokens;
}

function bytesOf(body: BodyInput): Uint8Array {
  if (typeof body === 'string') return utf8Bytes(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(
    'diagnoseDelivery: body must be the raw bytes as received (Uint8Array, Buffer, ArrayBuffer or string).',
  );
}

function withToken(headers: HeaderValues, token: string): Record<string, string[]> {
  return { ...headerRecord(headers), authorization: [`Bearer ${token}`] };
}

async function verdictOf(
  receiver: ReturnType<typeof createReceiver>,
  headers: HeadersInput,
  body: Uint8Array | undefined,
): Promise<DiagnosisVerdict> {
  try {
    await receiver.verify({ headers, body: body ?? new Uint8Array(0) });
    return body ? { status: 200, code: null, error: null, reason: null } : unknownWithoutBody();
  } catch (error) {
    if (!isWebhookError(error)) throw error;
    // Without the body only the header checks can be told; a later refusal would be about the stand-in.
    if (!body && (CHECK_OF_CODE[error.code] ?? 0) >= 4) return unknownWithoutBody();
    return { status: error.status, code: error.code, error: error.message, reason: error.reason };
  }
}

const unknownWithoutBody = (): DiagnosisVerdict => ({
  status: null,
  code: null,
  error: null,
  reason: 'the headers pass; without the body the rest cannot be told',
});

function sizeFinding(body: Uint8Array | undefined, maxBodyBytes: number): Finding {
  if (!body) return { check: skip('body size', 'the capture holds no body') };
  if (body.length <= maxBodyBytes) return { check: pass('body size', `${body.length} bytes (limit ${maxBodyBytes})`) };
  return {
    check: fail('body size', `${body.length} bytes, over the limit of ${maxBodyBytes}`),
    cause: {
      kind: 'body-too-large',
      message: `The body has ${body.length} bytes; this receiver's maxBodyBytes is ${maxBodyBytes}.`,
      fix: "Raise maxBodyBytes in createReceiver if articles are that large (they carry both HTML and Markdown), and the framework's own body limit with it.",
    },
  };
}
