import { concatBytes, decodeBase64, utf8Bytes, utf8Text } from './bytes.js';
import type { HeaderValues } from './headers.js';
import { type KeyFinder, keyFinder } from './hmac.js';
import { type Finding, fail, pass, skip } from './result.js';
import { describeMatch, type Match, unexplainedCause } from './signature-causes.js';
import { candidates } from './transformations.js';
import type { Signer } from './token.js';

/** What check 5 needs; the tokens never leave this module except as yes/no answers. */
export interface SignatureInput {
  headers: HeaderValues;
  body: Uint8Array | undefined;
  tokens: readonly string[];
  /** The Bearer credential when it is none of the configured tokens. */
  otherToken?: string;
  /** True when check 2 passed, so a mismatch is the signature's alone. */
  tokenRight: boolean;
}

/** Where a digest was read, and whether its format is the contract's. */
interface Source {
  header: string;
  /** Undefined when the format is right. */
  formatProblem?: string;
  digests: Uint8Array[];
}

const HEADER = 'x-service-signature';

/** Check 5: the signature's header and format, then which key and which bytes it covers. */
export async function analyzeSignature(input: SignatureInput): Promise<{ finding: Finding; signer: Signer }> {
  const source = locate(input.headers);
  if (!source) {
    return {
      signer: 'unknown',
      finding: {
        check: fail('signature', 'no X-Service-Signature header'),
        cause: {
          kind: 'signature-missing',
          message: 'No X-Service-Signature header, and no other signature header either.',
          fix: 'The service always sends it: check that no proxy drops X-Service-* headers. A hand-made request needs X-Service-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>"> (signDelivery makes it).',
        },
      },
    };
  }
  if (!input.body) {
    const detail = source.formatProblem ?? 'not checked: the capture holds no body';
    return { signer: 'unknown', finding: { check: skip('signature', detail) } };
  }
  const timestamp = input.headers.get('x-service-timestamp')?.join(', ') ?? '';
  const { match, tried } = await findMatch(source, input, timestamp);
  const signer: Signer = match ? match.key : 'unknown';
  if (
    match &&
    !match.candidate &&
    !match.special &&
    !source.formatProblem &&
    match.key === 'configured' &&
    source.header === HEADER
  )
    return {
      signer,
      finding: {
        check: pass(
          'signature',
          'sha256= and 64 hex digits, made with the configured token over the timestamp and the raw body',
        ),
      },
    };
  if (match) return { signer, finding: describeMatch(match, source.header, source.formatProblem) };
  if (source.formatProblem || source.header !== HEADER)
    return { signer, finding: describeMatch(undefined, source.header, source.formatProblem) };
  return {
    signer,
    finding: {
      check: fail('signature', `matches no key over these bytes, nor over ${tried} usual transformations of them`),
      cause: unexplainedCause(input.body, input.tokenRight, tried),
    },
  };
}

function locate(headers: HeaderValues): Source | undefined {
  const own = headers.get(HEADER);
  if (own && own.length > 1)
    return { header: HEADER, formatProblem: 'arrives more than once', digests: own.flatMap(digestsIn) };
  if (own) {
    const value = own[0]!.trim();
    if (/^sha256=[0-9a-fA-F]{64}$/.test(value)) return { header: HEADER, digests: digestsIn(value) };
    return { header: HEADER, formatProblem: formatProblem(value), digests: digestsIn(value) };
  }
  for (const [name, values] of headers) {
    if (!name.includes('signature')) continue;
    return { header: name, formatProblem: undefined, digests: values.flatMap(digestsIn) };
  }
  return undefined;
}

function formatProblem(value: string): string {
  if (/^sha256=/i.test(value) && /^.{7}[0-9a-fA-F]{64}$/.test(value))
    return `has its prefix in another case (${value.slice(0, 7)}); the receiver wants sha256= exactly`;
  if (/^[0-9a-fA-F]{64}$/.test(value)) return 'is 64 hex digits without the sha256= prefix';
  if (/^(sha256=)?[A-Za-z0-9+/_-]{43}=?$/i.test(value) && decodeBase64(value.replace(/^sha256=/i, ''))?.length === 32)
    return 'is base64 instead of 64 hex digits';
  if (/^(sha1=)?[0-9a-fA-F]{40}$/i.test(value))
    return 'is 40 hex digits: an HMAC-SHA1 (like GitHub’s X-Hub-Signature), where the service uses SHA-256';
  const hex = /^sha256=([0-9a-fA-F]*)$/.exec(value);
  if (hex) return `has ${hex[1]!.length} hex digits after sha256=; a SHA-256 has 64`;
  return 'is not sha256= followed by 64 hex digits';
}

/** Every 32-byte value written as hex or base64 in a header value (sha256=…, t=…,v1=…, v1,…). */
function digestsIn(value: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [hex] of value.matchAll(/[0-9a-fA-F]{64}/g))
    out.push(Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16)));
  for (const [text] of value.matchAll(/[A-Za-z0-9+/_-]{43}=?/g)) {
    const digest = decodeBase64(text);
    if (digest?.length === 32) out.push(digest);
  }
  return out;
}

/** The first key and message that produce one of the digests: as sent, then transformed, then odd signing formats. */
async function findMatch(
  source: Source,
  input: SignatureInput,
  timestamp: string,
): Promise<{ match?: Match; tried: number }> {
  if (source.digests.length === 0) return { tried: 0 };
  const keys: [Match['key'], string][] = input.tokens.map((token) => ['configured', token]);
  if (input.otherToken) keys.push(['other', input.otherToken]);
  const signedBy = await keyFinder(keys, source.digests);
  const body = input.body!;
  const prefix = utf8Bytes(`${timestamp}.`);
  const identity = await signedBy(concatBytes(prefix, body));
  if (identity) return { match: { key: identity }, tried: 0 };
  const tries = candidates(body);
  for (const candidate of tries) {
    const key = await signedBy(concatBytes(prefix, candidate.bytes));
    if (key) return { match: { key, candidate }, tried: tries.length };
  }
  const special = await findSpecial(body, timestamp, signedBy);
  return special ? { match: special, tried: tries.length } : { tried: tries.length };
}

/** A signer that left out the timestamp or its period, or a timestamp header changed after signing. */
async function findSpecial(
  body: Uint8Array,
  timestamp: string,
  signedBy: KeyFinder<Match['key']>,
): Promise<Match | undefined> {
  const bodyOnly = await signedBy(body);
  if (bodyOnly) return { key: bodyOnly, special: { kind: 'body-only' } };
  const noPeriod = await signedBy(concatBytes(utf8Bytes(timestamp), body));
  if (noPeriod) return { key: noPeriod, special: { kind: 'no-period' } };
  const envelope = envelopeTimestamp(body);
  if (envelope !== undefined && String(envelope) !== timestamp) {
    const key = await signedBy(concatBytes(utf8Bytes(`${envelope}.`), body));
    if (key)
      return {
        key,
        special: { kind: 'timestamp-changed', signedTimestamp: envelope, sentTimestamp: Number(timestamp) },
      };
  }
  return undefined;
}

/** The envelope's own timestamp, usually the one signed: a replay tool that changed only the header shows against it. */
function envelopeTimestamp(body: Uint8Array): number | undefined {
  try {
    const value = (JSON.parse(utf8Text(body) ?? '') as { timestamp?: unknown } | null)?.timestamp;
    return Number.isSafeInteger(value) ? (value as number) : undefined;
  } catch {
    return undefined;
  }
}
