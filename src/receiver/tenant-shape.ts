import type { Tenant } from './tenant.js';

/** A resolver's answer, checked: undefined for an unknown token. */
export interface CheckedTenant {
  id: string;
  tokens: readonly string[];
  profileId: string | undefined;
  domain: string | undefined;
}

/**
 * Checks what `tenants` returned. Throws a TypeError naming the fix, which the keeper reports
 * (at most once a minute) and answers 503, so a broken row is retried rather than refused.
 */
export function readTenant(value: unknown): CheckedTenant | undefined {
  if (value === undefined || value === null) return undefined;
  const tenant = value as Partial<Tenant>;
  const tokens = typeof tenant.token === 'string' ? [tenant.token] : tenant.token;
  const optional = (field: unknown) => field === undefined || field === null || typeof field === 'string';
  if (
    typeof value !== 'object' ||
    typeof tenant.id !== 'string' ||
    tenant.id === '' ||
    !Array.isArray(tokens) ||
    tokens.length === 0 ||
    tokens.some((token) => typeof token !== 'string' || token === '') ||
    !optional(tenant.profileId) ||
    !optional(tenant.domain)
  ) {
    throw new TypeError(
      'tenants must return { id: string, token: string | string[], profileId?: string, domain?: string } for a ' +
        'known token hash, or undefined for an unknown one; it returned something else ' +
        `(${typeof value === 'object' ? `an object with keys ${Object.keys(value).join(', ') || '(none)'}` : typeof value}).`,
    );
  }
  return {
    id: tenant.id,
    tokens: tokens as readonly string[],
    profileId: tenant.profileId ?? undefined,
    domain: tenant.domain ?? undefined,
  };
}
