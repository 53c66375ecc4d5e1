/**
 * The Redis ledger's Lua scripts. Every key of one ledger starts with the same tagged prefix
 * (ARGV[1], e.g. `webhook-cms:{ledger}:`), so on a Redis Cluster they share one hash slot and
 * each script, which builds its index keys from that prefix, stays atomic on one node.
 *
 * Under the prefix: `rows` (id → row JSON), `meta` (id → the row's index fields, JSON, so a
 * prune need not parse rows), `ids` (every id), one index per value: `a=<article>`,
 * `d=<delivery id>`, `t=<tenant>`, `r=<recovered from>`, `c=<status / 100>`; `u` (refused
 * rows), `v`/`v=<tenant>` (verified rows without a tenant / of a tenant, which `prune` bounds),
 * `tenants` (the `v…` keys), `copies` (copies on record per tenant and delivery id), `hours`
 * and `hours=<tenant>` (rows per `<hour>:<outcome>`). Every index is a sorted set with score 0,
 * ordered by id, which sorts by time: lists and ranges are lexical ranges.
 */

/** Shared by the append and prune scripts: where one row is indexed. */
const INDEX_FUNCTIONS = `
local P = ARGV[1]
local function index_keys(tenant, delivery, article, recovered, verified, hundred)
  local keys = {P .. 'ids', P .. 'c=' .. hundred}
  if tenant ~= '' then keys[#keys + 1] = P .. 't' .. tenant end
  if delivery ~= '' then keys[#keys + 1] = P .. 'd' .. delivery end
  if article ~= '' then keys[#keys + 1] = P .. 'a' .. article end
  if recovered ~= '' then keys[#keys + 1] = P .. 'r' .. recovered end
  if verified == '1' then keys[#keys + 1] = P .. 'v' .. tenant else keys[#keys + 1] = P .. 'u' end
  return keys
end
local function copy_field(tenant, delivery)
  return #tenant .. ':' .. tenant .. delivery
end
`;

/** Fields of one row in the append script's ARGV, after the prefix and the TTL. */
export const APPEND_FIELDS = 9;

/**
 * ARGV: prefix, TTL ms, then per row: id, JSON without `copy` (ending in `}`), tenant, delivery
 * id, article id, recovered from (each `''` for null, else `=` and the value), verified (`1`
 * or `0`), status / 100, `<hour>:<outcome>`. One call writes a whole batch: one round trip.
 * A row whose id is on record already is skipped, so a batch sent again is written once.
 * Every key written gets the retention as its TTL, a backstop for a ledger nobody prunes.
 */
export const APPEND_SCRIPT = `${INDEX_FUNCTIONS}
local touched = {[P .. 'rows'] = true, [P .. 'meta'] = true, [P .. 'hours'] = true}
for i = 3, #ARGV, ${APPEND_FIELDS} do
  local id, json, tenant, delivery, article, recovered, verified, hundred, hour = unpack(ARGV, i, i + ${APPEND_FIELDS - 1})
  -- A batch written again (its answer was lost, though it ran) counts each row once.
  if redis.call('HEXISTS', P .. 'rows', id) == 0 then
    local copy = 0
    if delivery ~= '' then
      copy = redis.call('HINCRBY', P .. 'copies', copy_field(tenant, delivery), 1)
      touched[P .. 'copies'] = true
    end
    redis.call('HSET', P .. 'rows', id, string.sub(json, 1, -2) .. ',"copy":' .. copy .. '}')
    redis.call('HSET', P .. 'meta', id, cjson.encode({tenant, delivery, article, recovered, verified, hundred, hour}))
    for _, key in ipairs(index_keys(tenant, delivery, article, recovered, verified, hundred)) do
      redis.call('ZADD', key, 0, id)
      touched[key] = true
    end
    if verified == '1' then
      redis.call('SADD', P .. 'tenants', P .. 'v' .. tenant)
      touched[P .. 'tenants'] = true
    end
    redis.call('HINCRBY', P .. 'hours', hour, 1)
    if tenant ~= '' then
      redis.call('HINCRBY', P .. 'hours' .. tenant, hour, 1)
      touched[P .. 'hours' .. tenant] = true
    end
  end
end
for key in pairs(touched) do redis.call('PEXPIRE', key, ARGV[2]) end
return 1`;

/**
 * ARGV: prefix, the id every older row is below (`r.<13-digit before>`), most verified rows per
 * tenant, most refused rows, most rows dropped in this call (so one call never blocks Redis
 * long). Drops each row from every index, its copy count and its hour count, so what remains
 * answers `copy` and `summary` as if the dropped rows never were. Replies
 * `{dropped, 1 when the budget ran out}`.
 */
export const PRUNE_SCRIPT = `${INDEX_FUNCTIONS}
local budget = tonumber(ARGV[5])
local dropped = 0
local function lower(key, field)
  if redis.call('HINCRBY', key, field, -1) <= 0 then redis.call('HDEL', key, field) end
end
local function drop(id)
  local meta = redis.call('HGET', P .. 'meta', id)
  if meta then
    local m = cjson.decode(meta)
    local tenant, delivery, hour = m[1], m[2], m[7]
    for _, key in ipairs(index_keys(tenant, delivery, m[3], m[4], m[5], m[6])) do redis.call('ZREM', key, id) end
    if delivery ~= '' then lower(P .. 'copies', copy_field(tenant, delivery)) end
    lower(P .. 'hours', hour)
    if tenant ~= '' then lower(P .. 'hours' .. tenant, hour) end
    redis.call('HDEL', P .. 'meta', id)
  else
    redis.call('ZREM', P .. 'ids', id)
  end
  redis.call('HDEL', P .. 'rows', id)
  dropped = dropped + 1
end
local function drop_oldest(key, count)
  count = math.min(count, budget - dropped)
  if count <= 0 then return end
  for _, id in ipairs(redis.call('ZRANGE', key, 0, count - 1)) do drop(id) end
end
for _, id in ipairs(redis.call('ZRANGEBYLEX', P .. 'ids', '-', '(' .. ARGV[2], 'LIMIT', 0, budget)) do drop(id) end
drop_oldest(P .. 'u', redis.call('ZCARD', P .. 'u') - tonumber(ARGV[4]))
for _, key in ipairs(redis.call('SMEMBERS', P .. 'tenants')) do
  local count = redis.call('ZCARD', key)
  if count == 0 then redis.call('SREM', P .. 'tenants', key) end
  drop_oldest(key, count - tonumber(ARGV[3]))
end
if dropped >= budget then return {dropped, 1} end
return {dropped, 0}`;

/**
 * KEYS: an index, the rows hash. ARGV: the lexical range's upper and lower bound, most ids.
 * Replies `id, row JSON` pairs, newest first (`''` for an id whose row is gone).
 */
export const LIST_SCRIPT = `
local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
if #ids == 0 then return {} end
local rows = redis.call('HMGET', KEYS[2], unpack(ids))
local reply = {}
for i, id in ipairs(ids) do
  reply[#reply + 1] = id
  reply[#reply + 1] = rows[i] or ''
end
return reply`;

/** KEYS: an hour-count hash. Replies its fields and counts. */
export const HOURS_SCRIPT = `return redis.call('HGETALL', KEYS[1])`;
