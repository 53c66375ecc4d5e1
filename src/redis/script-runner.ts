/** The part of a node-redis (v4+) client or cluster (`createClient`, `createCluster`) the store uses. */
export interface NodeRedisClientLike {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** The part of an ioredis (v5) client or cluster (`new Redis`, `new Cluster`) the store uses. */
export interface IoRedisClientLike {
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** A connected `redis` or `ioredis` client, for one Redis or a Redis Cluster. */
export type RedisClientLike = NodeRedisClientLike | IoRedisClientLike;

/** Runs a Lua script by its SHA1, sending the source only when Redis does not know it yet. */
export type RunScript = (source: string, keys: string[], args: string[]) => Promise<unknown>;

/**
 * Adapts either client to one `RunScript`. EVALSHA keeps each call to one small round trip;
 * on NOSCRIPT (first use, or after a Redis restart or SCRIPT FLUSH) EVAL runs the script and
 * caches it on the server for the next EVALSHA. Both clients' cluster flavours route the call
 * by its first key (node-redis reads `keys`, ioredis the keys after `numKeys`), and a cluster
 * node that lacks the script answers NOSCRIPT in turn, so the same calls serve a Redis Cluster.
 *
 * @example
 * ```ts
 * const run = scriptRunner(await createClient({ url }).connect());
 * const reply = await run("return redis.call('GET', KEYS[1])", ['some-key'], []);
 * ```
 */
export function scriptRunner(client: unknown): RunScript {
  const c = client as Partial<NodeRedisClientLike & IoRedisClientLike> | null;
  if (c && typeof c.evalSha === 'function' && typeof c.eval === 'function') {
    const nodeRedis = c as NodeRedisClientLike;
    return withFallback(
      (sha, keys, args) => nodeRedis.evalSha(sha, { keys, arguments: args }),
      (source, keys, args) => nodeRedis.eval(source, { keys, arguments: args }),
    );
  }
  if (c && typeof c.evalsha === 'function' && typeof c.eval === 'function') {
    const ioredis = c as IoRedisClientLike;
    return withFallback(
      (sha, keys, args) => ioredis.evalsha(sha, keys.length, ...keys, ...args),
      (source, keys, args) => ioredis.eval(source, keys.length, ...keys, ...args),
    );
  }
  throw new TypeError(
    'redisDedupStore: the client has neither evalSha (node-redis v4+) nor evalsha (ioredis v5). Pass a connected client: `await createClient({ url }).connect()` from "redis", or `new Redis(url)` from "ioredis".',
  );
}

type Call = (script: string, keys: string[], args: string[]) => Promise<unknown>;

function withFallback(evalSha: Call, evalSource: Call): RunScript {
  return async (source, keys, args) => {
    const sha = await sha1Of(source);
    try {
      return await evalSha(sha, keys, args);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).includes('NOSCRIPT')) throw explain(error);
      return evalSource(source, keys, args).catch((again: unknown) => Promise.reject(explain(again)));
    }
  };
}

/**
 * node-redis rejects every command of a client that was never connected, or was closed, with
 * a bare "The client is closed": name the fix, since the 503 it causes lasts until then.
 */
function explain(error: unknown): unknown {
  if ((error as Error | undefined)?.message !== 'The client is closed') return error;
  return new Error(
    'redisDedupStore: the node-redis client is not connected ("The client is closed"). Connect it before the ' +
      'receiver handles deliveries, and keep it open: `const redis = await createClient({ url }).connect()`.',
    { cause: error },
  );
}

const hashes = new Map<string, Promise<string>>();

function sha1Of(source: string): Promise<string> {
  let hash = hashes.get(source);
  if (!hash) {
    hash = globalThis.crypto.subtle
      .digest('SHA-1', new TextEncoder().encode(source))
      .then((digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(''));
    hashes.set(source, hash);
  }
  return hash;
}
