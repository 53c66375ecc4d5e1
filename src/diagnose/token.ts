import type { HeaderValues } from './headers.js';
import { type DiagnosisCause, type DiagnosisCheck, fail, pass, skip } from './result.js';

/** What the `Authorization` header holds, measured against the configured tokens. Internal: never printed. */
export interface AuthorizationFinding {
  check: DiagnosisCheck;
  problem?: 'missing' | 'repeated' | 'scheme' | 'whitespace' | 'mismatch';
  /** The credential, when it is readable and none of the configured tokens: a key worth trying on the signature. */
  otherToken?: string;
  /** True when a capture replaced the credential with a placeholder. */
  redacted: boolean;
  /** The cause sentence for a mismatch's token lengths, without revealing either token. */
  lengths?: string;
}

/** Placeholders that the inspector, the CLI and common loggers put where the token was. */
const REDACTED = /\[redacted\]|\*\*\*|<redacted>|\[filtered\]/i;
const QUOTES = /^["']|["']$/g;
const SOURCE = 'Profile Settings → CMS Integration';

/** Check 2, the way the receiver runs it, and what is wrong when it fails. */
export function analyzeAuthorization(headers: HeaderValues, tokens: readonly string[]): AuthorizationFinding {
  const values = headers.get('authorization') ?? [];
  const name = 'token';
  if (values.length === 0) return { check: fail(name, 'no Authorization header'), problem: 'missing', redacted: false };
  if (values.length > 1 || /,\s*bearer\s/i.test(values[0]!))
    return {
      check: fail(name, 'Authorization arrives more than once; a repeated security header is refused'),
      problem: 'repeated',
      redacted: false,
    };
  const value = values[0]!.trim();
  const space = value.indexOf(' ');
  const scheme = space < 0 ? '' : value.slice(0, space);
  if (REDACTED.test(value) && (space < 0 || scheme.toLowerCase() === 'bearer'))
    return { check: skip(name, 'the capture redacts the Bearer token, so it cannot be checked'), redacted: true };
  if (scheme.toLowerCase() !== 'bearer') {
    const what = space < 0 ? 'a bare value without a scheme' : `the ${scheme.slice(0, 20)} scheme`;
    return { check: fail(name, `Authorization uses ${what}, not Bearer`), problem: 'scheme', redacted: false };
  }
  const credential = value.slice(space + 1).trim();
  const index = tokens.indexOf(credential);
  if (index >= 0) {
    const which = index === 0 ? 'the configured token' : `configured token ${index + 1} (an older one, rotation)`;
    return { check: pass(name, `Bearer ${which}`), redacted: false };
  }
  const cleaned = (text: string) => text.trim().replace(QUOTES, '').trim();
  if (tokens.some((token) => cleaned(token) === cleaned(credential))) {
    return {
      check: fail(name, 'the Bearer token differs from the configured one only by whitespace or quotes'),
      problem: 'whitespace',
      redacted: false,
    };
  }
  return {
    check: fail(name, 'the Bearer token is none of the configured tokens'),
    problem: 'mismatch',
    otherToken: credential,
    redacted: false,
    lengths: lengths(credential, tokens[0]!),
  };
}

/** Lengths and a truncated copy are safe to tell; the characters are not. */
function lengths(received: string, configured: string): string {
  if (configured.length < received.length && received.startsWith(configured))
    return `Your token is a truncated copy of it: its first ${configured.length} of ${received.length} characters.`;
  if (received.length < configured.length && configured.startsWith(received))
    return `It is a truncated copy of yours: your first ${received.length} of ${configured.length} characters.`;
  return received.length === configured.length
    ? `Both are ${received.length} characters long.`
    : `It is ${received.length} characters long; yours is ${configured.length}.`;
}

/** Who made the signature, as far as the signature analysis found. */
export type Signer = 'configured' | 'other' | 'unknown';

/** The cause of a token refusal; what the signature says decides between a wrong token and another configuration. */
export function tokenCause(finding: AuthorizationFinding, signer: Signer): DiagnosisCause | undefined {
  switch (finding.problem) {
    case 'missing':
      return {
        kind: 'token-missing',
        message: 'No Authorization header reached the receiver.',
        fix: 'The service always sends one: something in between dropped it (Apache needs CGIPassAuth On; check the header forwarding of your CDN, proxy or API gateway). A hand-made request needs Authorization: Bearer $WEBHOOK_TOKEN.',
      };
    case 'repeated':
      return {
        kind: 'token-repeated',
        message: 'Authorization arrives more than once: a proxy or gateway added its own next to the service’s.',
        fix: 'Make the proxy replace or drop its own Authorization on the webhook path; only the service’s may arrive.',
      };
    case 'scheme':
      return {
        kind: 'token-scheme',
        message: `${finding.check.detail}: the service sends "Bearer <token>". A proxy with basic authentication in front of the endpoint replaces it.`,
        fix: 'Exempt the webhook path from the proxy’s own authentication; a hand-made request needs Authorization: Bearer $WEBHOOK_TOKEN.',
      };
    case 'whitespace':
      return {
        kind: 'token-whitespace',
        message:
          'The Bearer token equals your configured token once whitespace or quotes are removed: WEBHOOK_TOKEN was stored with a trailing newline, spaces or quotes (a quoted .env value, echo into a secret store).',
        fix: `Store the token exactly as ${SOURCE} showed it: no quotes, no newline (printf '%s' rather than echo), then restart the endpoint.`,
      };
    case 'mismatch':
      return mismatchCause(finding, signer);
    default:
      return undefined;
  }
}

function mismatchCause(finding: AuthorizationFinding, signer: Signer): DiagnosisCause {
  const lengths = finding.lengths ? ` ${finding.lengths}` : '';
  if (signer === 'other') {
    return {
      kind: 'token-other-configuration',
      message:
        'The delivery is consistent with itself (signed with the very token it carries), but that token is not yours: it comes from another configuration. ' +
        `The bytes cannot tell which: the token was regenerated in ${SOURCE} (the service now sends the new one and this endpoint still has the old one), this endpoint gets another profile's deliveries, or staging and production tokens are swapped.${lengths}`,
      fix: `Copy the current token from ${SOURCE} into this endpoint's WEBHOOK_TOKEN (regenerate it if it was not stored: it is shown once) and restart. To switch without refusals, createReceiver({ token: [newToken, oldToken] }) accepts both for a while.`,
    };
  }
  if (signer === 'configured') {
    return {
      kind: 'authorization-replaced',
      message:
        'The signature was made with your token, but Authorization carries another one: something between the sender and verify replaced the header (a proxy or API gateway adding its own credentials), or a hand-made request sends one token and signs with another.',
      fix: "Forward the service's Authorization header unchanged on the webhook path; in your own scripts, send and sign with the same token (signDelivery does).",
    };
  }
  return {
    kind: 'token-mismatch',
    message: `The Bearer token is not your token, and the signature was made neither with yours nor with the one in the header.${lengths}`,
    fix: `Check that this endpoint's WEBHOOK_TOKEN is the token ${SOURCE} showed, and that the request really comes from the service (or from a script using that same token).`,
  };
}
