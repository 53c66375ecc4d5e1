/**
 * An id (delivery id, article id) namespaced by its tenant, for every store and engine: the
 * tenant id's length comes first, so no pair of tenant and id can be written as another pair,
 * and ids the sites choose can never reach each other's keys.
 *
 * @example
 * ```ts
 * tenantScoped('site-a', 'd1'); // 'tenant:6:site-a:d1'
 * ```
 */
export function tenantScoped(tenantId: string | undefined, id: string): string {
  return tenantId === undefined ? id : `tenant:${tenantId.length}:${tenantId}:${id}`;
}
