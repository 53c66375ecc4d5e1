/** The headers the checks read, kept with a request (the token itself only as its hash). */
export const KEPT_HEADERS = ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id', 'x-service-event'];
/**
 * A request without these (or with an empty body) could never be verified later: it is not kept.
 * `authorization` names the token whose hash is kept with it.
 */
const VERIFIABLE_HEADERS = ['authorization', 'x-service-timestamp', 'x-service-signature', 'x-service-delivery-id'];

/** The kept headers a request has, by lower-case name. */
export function keptHeaders(lookup: (name: string) => string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = lookup(name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/**
 * Whether a request has what a later verification needs: every verifiable header, not empty.
 * The one test of it for both the rotation window's keeping and the ledger's.
 */
export function verifiable(lookup: (name: string) => string | undefined): boolean {
  return VERIFIABLE_HEADERS.every((name) => !!lookup(name));
}

/**
 * Whether a request's declared size lets it be kept: none declared (the read is bounded), or a
 * length from 1 to `maxBytes`. A declared 0, too many bytes or no number at all is refused on
 * its head, unread.
 */
export function keepableSize(lookup: (name: string) => string | undefined, maxBytes: number): boolean {
  const declared = lookup('content-length');
  return declared === undefined || (Number(declared) > 0 && Number(declared) <= maxBytes);
}
