/** The headers the checks read, kept with a request (the token itself only as its hash). */
export const KEPT_HEADERS = ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id', 'x-service-event'];
/** A request without these (or with an empty body) could never be verified later: it is not kept. */
export const VERIFIABLE_HEADERS = ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id'];

/** The kept headers a request has, by lower-case name. */
export function keptHeaders(lookup: (name: string) => string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = lookup(name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}
