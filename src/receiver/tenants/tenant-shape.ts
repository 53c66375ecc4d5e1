import type { Tenant } from './tenant.js';

/** A resolver's answer, checked: undefined for an unknown token. */
export interface CheckedTenant {
  id: string;
  tokens: readonly string[];
  profileId: string | undefined;
  domain: string | undefined;
}

const SHAPE = '{ id: string, token: string | string[], profileId?: string, domain?: string }';

/**
 * Checks what `tenants` returned. Throws a TypeError naming the field to fix, which the keeper
 * reports (at most once a minute) and answers 503, so a broken row is retried rather than
 * refused. Numeric ids (an integer primary key) are taken as their decimal text.
 */
export function readTenant(value: unknown): CheckedTenant | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') throw wrong(`it returned a ${typeof value}`);
  const tenant = value as Partial<Record<keyof Tenant, unknown>>;
  const id = text(tenant.id);
  if (id === undefined || id === '') throw wrong(`id must be a non-empty string; got ${shown(tenant.id)}`);
  const tokens = typeof tenant.token === 'string' ? [tenant.token] : tenant.token;
  if (!Array.isArray(tokens) || tokens.length === 0 || tokens.some((token) => typeof token !== 'string' || !token)) {
    throw wrong(`token must be a non-empty string or a non-empty array of them; got ${shown(tenant.token)}`);
  }
  const profileId = optional(tenant.profileId, 'profileId');
  const domain = optional(tenant.domain, 'domain');
  return {
    id,
    tokens: tokens as readonly string[],
    profileId,
    domain: typeof domain === 'string' ? domain : undefined,
  };
}

function optional(field: unknown, name: 'profileId' | 'domain'): string | undefined {
  if (field === undefined || field === null) return undefined;
  const value = name === 'profileId' ? text(field) : typeof field === 'string' ? field : undefined;
  if (value === undefined) throw wrong(`${name} must be a string when set; got ${shown(field)}`);
  return value;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

/** The type of a field, never its value: a token must not reach a log line. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}

function wrong(detail: string): TypeError {
  return new TypeError(
    `tenants must return ${SHAPE} for a known token hash, or undefined for an unknown one: ${detail}.`,
  );
}
