// The credentials the driver and the receivers share, and how they change under chaos: the token
// file (see credentials.mjs), which token the service signs with, and which answers a random
// token may get. A rotation follows the README's zero-loss steps: arm the window, the service
// switches to a token the receivers do not know yet (503 `token_rotating`, kept, retried), the
// new token added beside the old (deliveries signed with both), then the window closed.

import { newToken, writeCredentials } from './credentials.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function createWorld({ file, tenants, tokenCacheMs, random }) {
  const count = Math.max(1, tenants);
  const list = Array.from({ length: count }, (_, i) => ({ id: `t${i}`, tokens: [newToken()], sending: true }));
  let nextTenant = count;
  let rotatingUntil;
  let windowOpen = false;
  let windowClosedAt = 0;
  /** Tenant id → the token the service signs with when it is not tokens[0] (or both). */
  const signing = new Map();
  const removed = [];
  const write = () => {
    const body = { tenants: list.map(({ id, tokens }) => ({ id, tokens })) };
    writeCredentials(file, rotatingUntil ? { ...body, rotatingUntil } : body);
  };
  const settle = () => sleep(tokenCacheMs + 1_000);
  write();

  return {
    tenantMode: tenants > 0,
    /** Tenants the service sends for right now. */
    sendingTenants: () => list.filter((tenant) => tenant.sending),
    /** The token a legit delivery is signed with now (during a rotation, possibly one the receivers lack). */
    signingToken(tenant) {
      const choice = signing.get(tenant.id);
      if (Array.isArray(choice)) return choice[Math.floor(random() * choice.length)];
      return choice ?? tenant.tokens[0];
    },
    /**
     * A token every receiver accepts and will still accept when the request arrives: hostile
     * requests that must fail a later check use it. During a rotation that is the old token
     * until every receiver has read the new one, then the new one, never the token about to
     * be removed (a request with it in flight at the removal is answered 401, rightly).
     */
    knownToken: (tenant) => tenant.known ?? tenant.tokens[tenant.tokens.length - 1],
    /** Answers a random, well-formed token may get now. */
    randomTokenStatuses() {
      // Tenant mode: beyond the lookup budget, 503 `Token unavailable`. A rotation window
      // (and one token cache after it closes): 503 `Token rotation in progress`.
      const rotating = windowOpen || Date.now() < windowClosedAt + tokenCacheMs + 1_000;
      return tenants > 0 || rotating ? [401, 503] : [401];
    },
    removedTokens: () => removed.flatMap((tenant) => tenant.tokens),
    /** The rotation of tenant 0's token, start to end; `holdMs` per phase. */
    async rotate({ holdMs, log }) {
      const tenant = list[0];
      const old = tenant.tokens[0];
      const fresh = newToken();
      if (tenants === 0) {
        // A window is an option or a field of the source: this soak sets it through the source.
        rotatingUntil = Date.now() + 30 * 60_000;
        windowOpen = true;
        write();
        await settle();
        log('rotation: window armed; the service now signs with a token the receivers lack');
        signing.set(tenant.id, fresh);
        // Shorter than the service's retries: what was refused 503 meanwhile is retried and kept.
        await sleep(Math.min(holdMs, 4_000));
      }
      tenant.tokens = [fresh, old];
      write();
      await settle();
      tenant.known = fresh;
      log('rotation: new token added beside the old; deliveries signed with both');
      signing.set(tenant.id, [fresh, old]);
      await sleep(holdMs);
      // The service has moved to the new token; the old one leaves once nothing signed with it
      // is still on its way (removing it under a request in flight is a 401 the user caused).
      signing.delete(tenant.id);
      await sleep(tokenCacheMs + 3_000);
      tenant.tokens = [fresh];
      tenant.known = undefined;
      rotatingUntil = undefined;
      write();
      windowOpen = false;
      windowClosedAt = Date.now();
      log('rotation: old token removed, window closed');
    },
    /** A new tenant: in the file first, traffic once every receiver's unknown-hash cache (1 s) lapsed. */
    async addTenant({ log }) {
      const tenant = { id: `t${nextTenant++}`, tokens: [newToken()], sending: false };
      list.push(tenant);
      write();
      await sleep(1_500);
      tenant.sending = true;
      log(`tenant ${tenant.id} added`);
      return tenant;
    },
    /** The newest tenant but t0: its traffic stops, its retries drain, then it leaves the file. */
    async removeTenant({ drainMs, log }) {
      const tenant = list.filter((t) => t.id !== 't0').at(-1);
      if (!tenant) return undefined;
      tenant.sending = false;
      await sleep(drainMs);
      list.splice(list.indexOf(tenant), 1);
      write();
      removed.push(tenant);
      log(`tenant ${tenant.id} removed`);
      await settle();
      return tenant;
    },
  };
}
