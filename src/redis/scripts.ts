import { STALE_ANSWER } from 'webhook-cms-receiver';

/**
 * The store's Lua scripts. Each runs atomically inside Redis, so a check and the write that
 * depends on it never interleave with another process's.
 *
 * KEYS[1] is the delivery's key: `c|<lease>` while claimed, `d|<answer JSON>` once handled.
 * With ordering, KEYS[2] holds the article's newest applied envelope timestamp (kept for the
 * retention period) and KEYS[3] the lease of the one delivery running for the article. The
 * three share a hash tag, so on a Redis Cluster they live in one slot. Every expiry is a PX
 * TTL, Redis's own clock: nothing depends on the receiving hosts' clocks.
 */

// Recorded by the claim script itself, so a stale delivery costs one round trip.
const STALE = JSON.stringify(STALE_ANSWER);

/**
 * ARGV: lease, lease ms; with ordering also the envelope timestamp and the retention ms.
 * Replies `{'done', answer}`, `{'in-progress'}`, `{'stale', newest}` or `{'claimed'}`.
 */
export const CLAIM_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then
  if string.sub(value, 1, 2) == 'd|' then return {'done', string.sub(value, 3)} end
  return {'in-progress'}
end
if #KEYS == 3 then
  local newest = redis.call('GET', KEYS[2])
  if newest and tonumber(ARGV[3]) < tonumber(newest) then
    redis.call('SET', KEYS[1], 'd|' .. [[${STALE}]], 'PX', ARGV[4])
    return {'stale', newest}
  end
  if redis.call('EXISTS', KEYS[3]) == 1 then return {'in-progress'} end
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
end
redis.call('SET', KEYS[1], 'c|' .. ARGV[1], 'PX', ARGV[2])
return {'claimed'}
`;

/**
 * ARGV: lease, lease ms. 1 while this lease holds the delivery (and the article), taking them
 * again if they lapsed and nobody took them; 0 when another request holds or finished either.
 */
export const RENEW_SCRIPT = `
local mine = 'c|' .. ARGV[1]
local value = redis.call('GET', KEYS[1])
if value and value ~= mine then return 0 end
if #KEYS == 3 then
  local holder = redis.call('GET', KEYS[3])
  if holder and holder ~= ARGV[1] then return 0 end
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
end
redis.call('SET', KEYS[1], mine, 'PX', ARGV[2])
return 1
`;

/**
 * ARGV: lease, answer JSON, retention ms; with ordering also the envelope timestamp. Records
 * the delivery when this lease holds it or nobody does (the lease lapsed and no copy took
 * it), raises the article's mark to the newer timestamp and frees the article. 0, writing
 * nothing, when another request holds or finished the delivery.
 */
export const COMPLETE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value and value ~= 'c|' .. ARGV[1] then return 0 end
if #KEYS == 3 then
  local newest = redis.call('GET', KEYS[2])
  if not newest or tonumber(newest) < tonumber(ARGV[4]) then newest = ARGV[4] end
  redis.call('SET', KEYS[2], newest, 'PX', ARGV[3])
  if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
end
redis.call('SET', KEYS[1], 'd|' .. ARGV[2], 'PX', ARGV[3])
return 1
`;

/** ARGV: lease. Frees the delivery (and the article) only while this lease holds them, never another request's claim. */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == 'c|' .. ARGV[1] then redis.call('DEL', KEYS[1]) end
if #KEYS == 3 and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 0
`;
