import type { TenantKeeper, TenantKeeperOptions } from './tenant-keeper.js';
import { bearerStart } from './token.js';
import type { TokenMatcher } from './token-matcher.js';
import { readDeadline } from './token-source.js';

/**
 * Tenant mode's token matcher, its code loaded on first use: only receivers made with
 * `tenants` load (or, split by a bundler, download) the resolver cache, the lookup cap and the
 * profile binding. The options are checked here, so a bad one still throws from createReceiver.
 */
export function tenantKeeper(options: TenantKeeperOptions): TokenMatcher {
  const deadline = readDeadline(options.rotatingUntil, options.now, 'createReceiver: rotatingUntil');
  let keeper: TenantKeeper | undefined;
  let listener: (() => void) | undefined;
  const loading = import('./tenant-keeper.js').then((loaded) => {
    keeper = new loaded.TenantKeeper(options);
    if (listener) keeper.onChange(listener);
    return keeper;
  });
  // A failed load (a broken deployment) is answered on use, as a rejected match.
  loading.catch(() => {});
  return {
    match: (authorization) => keeper?.match(authorization) ?? loading.then((ready) => ready.match(authorization)),
    matchNow(authorization) {
      if (keeper) return keeper.matchNow(authorization);
      // A malformed header is refused on the head even before the code is in.
      bearerStart(authorization);
      return undefined;
    },
    matchKept: (tokenSha256) => loading.then((ready) => ready.matchKept(tokenSha256)),
    rotatingUntil: () => (deadline !== undefined && deadline > options.now() ? deadline : undefined),
    refresh: () => Promise.resolve(),
    onChange(changed) {
      listener = changed;
      keeper?.onChange(changed);
    },
  };
}
