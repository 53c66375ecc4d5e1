/**
 * One site of a multi-site endpoint: its id (namespacing its dedup keys, ordering marks, job
 * ids and kept requests), its token (or two during its own rotation, the first current), and
 * the profile its deliveries must name.
 *
 * @example
 * ```ts
 * const tenant: Tenant = { id: 'site-42', token: row.token, profileId: row.profile_id, domain: 'blog.example.com' };
 * ```
 */
export interface Tenant {
  /** Your id for the site: any non-empty string. Handlers see it as `event.tenant.id`. */
  id: string;
  /** The site's token, or its list during a rotation (first current, the others still accepted). */
  token: string | readonly string[];
  /** When set, `article.sync` and `article.trash` must name this `profile.id`, else 403 `Profile mismatch`. */
  profileId?: string;
  /**
   * When set, those events must name this `profile.domain`, else 403. Compared as hosts: IDNA to
   * ASCII (`bücher.example` is `xn--bcher-kva.example`), lower case, a trailing dot dropped.
   */
  domain?: string;
}

/**
 * Finds the tenant a presented Bearer token belongs to, given the token's SHA-256 as
 * lower-case hex (never the token itself), so tenants can be stored and looked up by hash.
 * Returns the tenant, or undefined (or null) for an unknown token; may be async. Found
 * tenants are kept for `tokenCacheMs`, unknown hashes for 1 s, and lookups of uncached hashes
 * are capped by `tenantLookupsPerSecond`.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({
 *   tenants: async (tokenSha256) => {
 *     const { rows } = await pool.query('select id, token, profile_id from sites where token_sha256 = $1', [tokenSha256]);
 *     return rows[0] && { id: rows[0].id, token: rows[0].token, profileId: rows[0].profile_id };
 *   },
 * });
 * ```
 */
export type TenantResolver = (tokenSha256: string) => Tenant | undefined | null | Promise<Tenant | undefined | null>;

/** The default of `tenantLookupsPerSecond`: lookups of uncached token hashes per second. */
export const DEFAULT_TENANT_LOOKUPS_PER_SECOND = 50;
