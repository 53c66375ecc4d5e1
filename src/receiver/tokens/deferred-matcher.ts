import { bearerStart } from './token.js';
import type { TokenMatcher } from './token-matcher.js';

/** What a {@link deferredMatcher} is made from. */
export interface DeferredMatcherOptions {
  /** Loads the matcher's code (a dynamic import) and makes it. */
  load: () => Promise<TokenMatcher>;
  /** The `rotatingUntil` option, already checked: the window while the code loads. */
  deadline: number | undefined;
  now: () => number;
}

/**
 * A token matcher whose code loads on first use, so only receivers that need it load (or, split
 * by a bundler, download) it: tenant mode, token sources and rotation windows. Its options are
 * checked before, so a bad one still throws from createReceiver. Until the code is in, every
 * check waits for it, and a request's head is left for the body to settle.
 */
export function deferredMatcher({ load, deadline, now }: DeferredMatcherOptions): TokenMatcher {
  const until = deadline ?? Number.NEGATIVE_INFINITY;
  let matcher: TokenMatcher | undefined;
  let listener: (() => void) | undefined;
  const loading = load().then((loaded) => {
    matcher = loaded;
    if (listener) loaded.onChange(listener);
    return loaded;
  });
  // A failed load (a broken deployment) is answered on use, as a rejected match.
  loading.catch(() => {});
  return {
    match: (authorization) => matcher?.match(authorization) ?? loading.then((ready) => ready.match(authorization)),
    matchNow(authorization) {
      if (matcher) return matcher.matchNow(authorization);
      // A malformed header is refused on the head even before the code is in.
      bearerStart(authorization);
      return undefined;
    },
    matchKept: (tokenSha256) => loading.then((ready) => ready.matchKept(tokenSha256)),
    rotatingUntil: () => (matcher ? matcher.rotatingUntil() : until > now() ? deadline : undefined),
    refresh: () =>
      loading.then(
        (ready) => ready.refresh(),
        () => {},
      ),
    onChange(changed) {
      listener = changed;
      matcher?.onChange(changed);
    },
  };
}
