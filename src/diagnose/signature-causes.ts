import { utf8Text } from './bytes.js';
import { type DiagnosisCause, type Finding, fail } from './result.js';
import { type Candidate, TRANSFORMATIONS } from './transformations.js';

/** Which key made the signature, and over what, when one of the tries matched. */
export interface Match {
  key: 'configured' | 'other';
  candidate?: Candidate;
  special?: { kind: 'body-only' | 'no-period' | 'timestamp-changed'; signedTimestamp?: number; sentTimestamp?: number };
}

const HEADER = 'x-service-signature';
const HEX_FIX =
  'Write it as sha256= followed by the 64 hex digits of HMAC-SHA256 keyed with the token over "<timestamp>.<raw body>" (digest("hex"), not "base64"); signDelivery from webhook-cms-receiver/testing does.';
const RESIGN =
  'A changed timestamp needs a new signature: sign the body again (webhook-cms-receiver sign --file body.json) or send it with webhook-cms-receiver send.';

/** Check 5's finding when a signature was read somewhere: a wrong header or format, or a key and bytes that match. */
export function describeMatch(match: Match | undefined, header: string, formatProblem: string | undefined): Finding {
  const yours = match?.key === 'configured' && !match.candidate && !match.special;
  if (header !== HEADER) {
    const verdict = yours
      ? 'it is valid for this body and your token: only the header name is wrong'
      : 'it does not match this body with your token either';
    return {
      check: fail('signature', `no X-Service-Signature; a signature is in ${header} instead`),
      cause: {
        kind: 'signature-header',
        header,
        message: `No X-Service-Signature header; a signature was found in ${header} instead, and ${verdict}.`,
        fix: `Send it as X-Service-Signature: a proxy renamed the header, or the sender follows another provider's convention (GitHub's X-Hub-Signature-256, a generic X-Signature). ${HEX_FIX}`,
      },
    };
  }
  if (formatProblem) {
    const verdict = yours
      ? 'the digest itself is right for this body and your token, so only its format is wrong'
      : 'it does not match this body with your token either';
    return {
      check: fail('signature', `X-Service-Signature ${formatProblem}`),
      cause: { kind: 'signature-format', message: `X-Service-Signature ${formatProblem}; ${verdict}.`, fix: HEX_FIX },
    };
  }
  return keyFinding(match!);
}

function keyFinding(match: Match): Finding {
  const whose = match.key === 'configured' ? 'your token' : 'the token in Authorization, not yours,';
  if (match.candidate) {
    const { transformation } = match.candidate;
    const { what, fix } = TRANSFORMATIONS[transformation];
    const check = fail('signature', `made with ${whose} over other bytes: ${transformation}`);
    if (match.key === 'other') return { check };
    return { check, cause: { kind: 'body-transformed', transformation, message: fill(what, match.candidate), fix } };
  }
  if (match.special?.kind === 'timestamp-changed') {
    const signed = match.special.signedTimestamp!;
    const offset = (match.special.sentTimestamp ?? signed) - signed;
    return {
      check: fail('signature', `made with ${whose} for X-Service-Timestamp ${signed}, not the one sent`),
      cause: {
        kind: 'timestamp-changed',
        offsetSeconds: offset,
        message: `The signature matches this body with X-Service-Timestamp ${signed} (the envelope's own timestamp, ${offset} s before the header's): the header was changed after signing, e.g. a replayed request given a fresh timestamp.`,
        fix: RESIGN,
      },
    };
  }
  if (match.special) {
    const what =
      match.special.kind === 'body-only'
        ? 'an HMAC of the body alone'
        : 'an HMAC of the timestamp and the body without the period between them';
    return {
      check: fail('signature', `made with ${whose}, but as ${what}`),
      cause: {
        kind: 'signed-message',
        message: `The signature is ${what}; the service signs "<timestamp>.<raw body>".`,
        fix: 'Sign "<timestamp>.<raw body>" with the token, the timestamp exactly as sent in X-Service-Timestamp (signDelivery does).',
      },
    };
  }
  return { check: fail('signature', `made with ${whose} over these exact bytes`) };
}

function fill(template: string, candidate: Candidate): string {
  return template
    .replace('{signedAs}', candidate.signedAs ?? 'other bytes')
    .replace('{receivedAs}', candidate.receivedAs ?? 'another layout')
    .replace('{charset}', candidate.charset ?? 'a single-byte charset');
}

/** The cause when no key and no transformation explains the signature. */
export function unexplainedCause(body: Uint8Array, tokenRight: boolean, tried: number): DiagnosisCause {
  const text = utf8Text(body);
  if (body.length === 0 || text === '[object Object]') {
    return {
      kind: 'body-lost',
      message:
        body.length === 0
          ? 'The body is empty: something read the request stream before verify (a body parser), or the capture lost it.'
          : 'The body is the text "[object Object]": a body parser turned it into an object, and String() of that is all verify got.',
      fix: 'Mount the webhook route before any body parser, or hand verify the raw bytes the framework kept (express.raw(), req.rawBody).',
    };
  }
  const tries = `these bytes, nor over any of ${tried} usual transformations of them (re-serialized JSON, BOM, base64, line endings, final newline, Latin-1)`;
  if (tokenRight) {
    return {
      kind: 'signature-other-secret',
      message: `The Bearer token is yours, but the signature was not made with it over ${tries}. Either the signer used another secret (the service signs with the token it sends, so this points at a hand-made request or a test signing with another key) or the bytes changed in a way not recognised here.`,
      fix: 'Sign with the same token you send (signDelivery and webhook-cms-receiver sign do). If the service sent it, capture the body before any middleware touches it and diagnose that.',
    };
  }
  return {
    kind: 'signature-unexplained',
    message: `The signature was not made with your token over ${tries}. The Bearer token is not available to tell whether the sender used your token at all.`,
    fix: 'Capture the request before any middleware, with its Authorization header, and diagnose again; check that WEBHOOK_TOKEN is the token Profile Settings → CMS Integration showed.',
  };
}
