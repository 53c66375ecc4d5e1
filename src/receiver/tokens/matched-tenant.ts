import type { WebhookEvent } from '../../events/types.js';

// Below tenant mode on purpose: a matched token carries its tenant's binding, so the matcher
// interface (tokens) names it, and tenant mode (above tokens) implements it.

/** What handlers see of the tenant a delivery came for: `event.tenant`. */
export interface TenantRef {
  readonly id: string;
}

/** What verification checks of a tenant once its token matched: the profile binding. */
export interface TenantBinding {
  readonly ref: TenantRef;
  readonly profileId: string | undefined;
  /** As hosts compare (`domainKey`: IDNA to ASCII, lower case, no trailing dot). */
  readonly domain: string | undefined;
  /** Checks the event names this tenant's profile (else throws 403) and sets `event.tenant`. */
  bind(event: WebhookEvent): WebhookEvent;
}
