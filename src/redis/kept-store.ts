import type { KeptRequest, KeptRequestStore } from 'webhook-cms-receiver';
import type { RunScript } from './script-runner.js';

// Both keys carry the hash tag `{kept}` (unless the prefix has its own), so one Redis Cluster
// slot holds them and each script stays atomic.
const KEEP_SCRIPT = `
local count = redis.call('HLEN', KEYS[1])
local bytes = tonumber(redis.call('GET', KEYS[2]) or '0')
if count >= tonumber(ARGV[4]) or bytes + tonumber(ARGV[3]) > tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1`;

const TAKE_SCRIPT = `
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DECRBY', KEYS[2], string.len(value))
return 1`;

const CLEAR_SCRIPT = `
local count = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return count`;

const LIST_SCRIPT = `return redis.call('HVALS', KEYS[1])`;

const encoder = new TextEncoder();

/**
 * Requests kept during a rotation window, in one Redis hash every receiver on the store
 * shares: keeping is bounded atomically by count and bytes, a request is taken by exactly one
 * instance, and the keys expire on their own when the window ends (a Redis TTL, so no
 * receiver's clock needs to agree with another's).
 */
export function redisKeptRequests(run: RunScript, prefix: string, now: () => number = Date.now): KeptRequestStore {
  const tagged = prefix.includes('{') ? prefix : `${prefix}{kept}:`;
  const keys = [`${tagged}kept`, `${tagged}kept-bytes`];
  return {
    async keep(request, limits) {
      const json = JSON.stringify(request);
      const ttl = Math.max(1, Math.ceil(limits.until - now()));
      const args = [request.id, json, String(encoder.encode(json).byteLength), String(limits.maxCount)];
      args.push(String(limits.maxBytes), String(ttl));
      return Number(await run(KEEP_SCRIPT, keys, args)) === 1;
    },
    async list() {
      const values = await run(LIST_SCRIPT, keys, []);
      return (Array.isArray(values) ? values : []).map((value) => JSON.parse(String(value)) as KeptRequest);
    },
    async take(id) {
      return Number(await run(TAKE_SCRIPT, keys, [id])) === 1;
    },
    async clear() {
      return Number(await run(CLEAR_SCRIPT, keys, []));
    },
  };
}
