/**
 * The store's three Lua scripts. Each runs atomically inside Redis, so a check and the write
 * that depends on it cannot interleave with another process's.
 *
 * Every script gets the delivery's keys (delivery id first when it has one, then signature).
 * A key holds `c|<lease>` while claimed and `d|<response JSON>` once handled.
 */

/** ARGV: lease, lease ms. Replies `{'done', index, response}`, `{'in-progress', index}` or `{'claimed'}`. */
export const CLAIM_SCRIPT = `
local done, busy
for i = 1, #KEYS do
  local value = redis.call('GET', KEYS[i])
  if value then
    if string.sub(value, 1, 2) == 'd|' then
      done = done or {'done', tostring(i), string.sub(value, 3)}
    else
      busy = busy or {'in-progress', tostring(i)}
    end
  end
end
if done then return done end
if busy then return busy end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], 'c|' .. ARGV[1], 'PX', ARGV[2], 'NX')
end
return {'claimed'}
`;

/** ARGV: lease, response JSON, then one TTL in ms per key. Writes only keys this lease still holds. */
export const COMPLETE_SCRIPT = `
local mine = 'c|' .. ARGV[1]
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == mine then
    local ttl = tonumber(ARGV[2 + i])
    if ttl > 0 then
      redis.call('SET', KEYS[i], 'd|' .. ARGV[2], 'PX', ttl)
    else
      redis.call('DEL', KEYS[i])
    end
  end
end
return 0
`;

/** ARGV: lease. Deletes only keys this lease still holds, never another process's claim. */
export const RELEASE_SCRIPT = `
local mine = 'c|' .. ARGV[1]
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == mine then
    redis.call('DEL', KEYS[i])
  end
end
return 0
`;
