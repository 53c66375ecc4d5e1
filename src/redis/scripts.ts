/**
 * The store's Lua scripts. Each runs atomically inside Redis and touches one key, the
 * delivery's, so it works on a Redis Cluster as on one Redis. The key holds `c|<lease>` while
 * claimed and `d|<answer JSON>` once handled; its TTL is Redis's own clock, never a host's.
 */

/** ARGV: lease, lease ms. Replies `{'done', answer}`, `{'in-progress'}` or `{'claimed'}`. */
export const CLAIM_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then
  if string.sub(value, 1, 2) == 'd|' then return {'done', string.sub(value, 3)} end
  return {'in-progress'}
end
redis.call('SET', KEYS[1], 'c|' .. ARGV[1], 'PX', ARGV[2])
return {'claimed'}
`;

/** ARGV: lease, lease ms. 1 while this lease holds (taking the key again if it lapsed unclaimed), else 0. */
export const RENEW_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value == false then
  redis.call('SET', KEYS[1], 'c|' .. ARGV[1], 'PX', ARGV[2])
  return 1
end
if value == 'c|' .. ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * ARGV: lease, answer JSON, retention ms. Records the delivery when this lease holds it or
 * nobody does (the lease lapsed and no copy took it); 0 when another request holds or
 * finished it.
 */
export const COMPLETE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value == false or value == 'c|' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'd|' .. ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`;

/** ARGV: lease. Deletes the key only while this lease holds it, never another request's claim. */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == 'c|' .. ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 0
`;
