import { deferredMatcher } from '../tokens/deferred-matcher.js';
import type { TenantKeeperOptions } from './tenant-keeper.js';
import type { TokenMatcher } from '../tokens/token-matcher.js';
import { readDeadline } from '../tokens/token-source.js';

/**
 * Tenant mode's token matcher, its code loaded on first use: only receivers made with
 * `tenants` load (or, split by a bundler, download) the resolver cache, the lookup cap and the
 * profile binding. The options are checked here, so a bad one still throws from createReceiver.
 */
export function tenantKeeper(options: TenantKeeperOptions): TokenMatcher {
  return deferredMatcher({
    load: () => import('./tenant-keeper.js').then((loaded) => new loaded.TenantKeeper(options)),
    deadline: readDeadline(options.rotatingUntil, options.now, 'createReceiver: rotatingUntil'),
    now: options.now,
  });
}
