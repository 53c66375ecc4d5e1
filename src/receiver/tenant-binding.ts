import { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import type { TenantBinding } from './tenant.js';

/**
 * Tenant mode's last check: an article event must name the tenant's profile (where the tenant
 * names one), so one site's token cannot sign deliveries for another site. A `test` event
 * (profile null) passes on the token alone. Returns the event with `tenant` set.
 */
export function checkTenant(event: WebhookEvent, tenant: TenantBinding): WebhookEvent {
  if (event.type === 'article.sync' || event.type === 'article.trash') {
    const { id, domain } = event.profile;
    const wrongId = tenant.profileId !== undefined && id !== tenant.profileId;
    const wrongDomain = tenant.domain !== undefined && domain.toLowerCase() !== tenant.domain;
    if (wrongId || wrongDomain) {
      // Both sides go to onRejected through the reason; the answer is only "Profile mismatch".
      const named = wrongId ? `profile.id ${JSON.stringify(id)}` : `profile.domain ${JSON.stringify(domain)}`;
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
