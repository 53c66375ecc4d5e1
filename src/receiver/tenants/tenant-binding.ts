import { WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import type { TenantBinding } from '../tokens/matched-tenant.js';

/**
 * Tenant mode's last check: an article event must name the tenant's profile (where the tenant
 * names one), so one site's token cannot sign deliveries for another site. A `test` event
 * (profile null) passes on the token alone; an event this version does not know is held to
 * the same check when it carries a profile. Returns the event with `tenant` set.
 */
export function checkTenant(event: WebhookEvent, tenant: Omit<TenantBinding, 'bind'>): WebhookEvent {
  const profile = profileOf(event);
  if (profile) {
    const { id, domain } = profile;
    const wrongId = tenant.profileId !== undefined && id !== tenant.profileId;
    const wrongDomain = tenant.domain !== undefined && (domain === undefined || domainKey(domain) !== tenant.domain);
    if (wrongId || wrongDomain) {
      // Both sides go to onRejected through the reason; the answer is only "Profile mismatch".
      const named = wrongId
        ? `profile.id ${typeof id === 'string' ? JSON.stringify(id) : `of type ${typeof id}`}`
        : `profile.domain ${JSON.stringify(domain)}`;
      const expected = wrongId
        ? `profile ${JSON.stringify(tenant.profileId)}`
        : `domain ${JSON.stringify(tenant.domain)}`;
      throw new WebhookError(
        'profile_mismatch',
        `the envelope names ${named}, but the token belongs to tenant ${JSON.stringify(tenant.ref.id)} ` +
          `(${expected}): another site's token, or the tenant's profileId/domain is out of date`,
      );
    }
  }
  (event as { tenant?: TenantBinding['ref'] }).tenant = tenant.ref;
  return event;
}

/**
 * A domain as a host compares: the WHATWG URL parser's host (IDNA to ASCII, so `bücher.example`
 * is `xn--bcher-kva.example`, and lower case, so the Kelvin sign is a `k`) without a trailing
 * dot. Look-alikes stay apart (Cyrillic `раураl.com` is `xn--l-7sba6dbr.com`). Text that is no
 * host (a path, a port, user info, a space) is compared as its lower-cased self, so it matches
 * only the same text: never thrown, never widened to the host inside it. `URL` is a global of
 * every supported runtime (Node, Bun, Deno, workerd, browsers).
 */
export function domainKey(domain: string): string {
  let host = domain.toLowerCase();
  // What makes `http://<text>` more than a host, or a host the parser cleans up first: user
  // info, a port, a path, a query, a fragment, an escape, white space, a control character.
  if (/[\s\p{Cc}/\\?#@:%]/u.test(domain)) return host;
  try {
    host = new URL(`http://${domain}`).hostname;
  } catch {
    return host;
  }
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** The profile an event names: article events always have one (checked by the parser), unknown ones may. */
function profileOf(event: WebhookEvent): { id: unknown; domain: string | undefined } | undefined {
  if (event.type === 'article.sync' || event.type === 'article.trash') return event.profile;
  if (event.type !== 'unknown') return undefined;
  const profile = (event.payload as { profile?: unknown }).profile;
  if (typeof profile !== 'object' || profile === null) return undefined;
  const { id, domain } = profile as { id?: unknown; domain?: unknown };
  return { id, domain: typeof domain === 'string' ? domain : undefined };
}
