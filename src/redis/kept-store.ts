import type { KeptRequest, KeptRequestStore, KeptSummary } from 'webhook-cms-receiver';
import type { RunScript } from './script-runner.js';

// Both keys carry the hash tag `{kept}` (unless the prefix has its own), so one Redis Cluster
// slot holds them and each script stays atomic.
// KEYS: the requests (id -> JSON), their token hashes (id -> SHA-256 hex), the byte count.
const KEEP_SCRIPT = `
local count = redis.call('HLEN', KEYS[1])
local bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
if count >= tonumber(ARGV[4]) or bytes + tonumber(ARGV[3]) > tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[7])
redis.call('INCRBY', KEYS[3], ARGV[3])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return 1`;

const TAKE_SCRIPT = `
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DECRBY', KEYS[3], string.len(value))
return value`;

const CLEAR_SCRIPT = `
local count = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return count`;

const LIST_SCRIPT = `return redis.call('HGETALL', KEYS[2])`;

const encoder = new TextEncoder();

/**
 * Requests kept during a rotation window, in one Redis hash every receiver on the store
 * shares: keeping is bounded atomically by count and bytes, a request is taken by exactly one
 * instance, and the keys expire on their own when the window ends (a Redis TTL, so no
 * receiver's clock needs to agree with another's).
 */
export function redisKeptRequests(run: RunScript, prefix: string, now: () => number = Date.now): KeptRequestStore {
  const tagged = prefix.includes('{') ? prefix : `${prefix}{kept}:`;
  const keys = [`${tagged}kept`, `${tagged}kept-tokens`, `${tagged}kept-bytes`];
  return {
    async keep(request, limits) {
      const json = JSON.stringify(request);
      const ttl = Math.max(1, Math.ceil(limits.until - now()));
      const args = [request.id, json, String(encoder.encode(json).byteLength), String(limits.maxCount)];
      args.push(String(limits.maxBytes), String(ttl), request.tokenSha256);
      return Number(await run(KEEP_SCRIPT, keys, args)) === 1;
    },
    async list() {
      const flat = await run(LIST_SCRIPT, keys, []);
      const pairs = Array.isArray(flat) ? flat.map(String) : [];
      const kept: KeptSummary[] = [];
      for (let i = 0; i + 1 < pairs.length; i += 2) kept.push({ id: pairs[i]!, tokenSha256: pairs[i + 1]! });
      return kept;
    },
    async take(id) {
      const value = await run(TAKE_SCRIPT, keys, [id]);
      return typeof value === 'string' || value instanceof Uint8Array
        ? (JSON.parse(String(value)) as KeptRequest)
        : undefined;
    },
    async clear() {
      return Number(await run(CLEAR_SCRIPT, keys, []));
    },
  };
}
