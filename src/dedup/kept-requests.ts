/**
 * A request answered 503 during a rotation window, kept until a token verifies it. It holds
 * the SHA-256 of the presented Bearer token, never the token: a store holds no secret.
 */
export interface KeptRequest {
  /** A random id, unique per kept request. */
  id: string;
  /** SHA-256 hex of the Bearer token the request presented. */
  tokenSha256: string;
  /** The headers the checks read, by lower-case name, except `authorization`. */
  headers: Readonly<Record<string, string>>;
  /** The raw body, base64. */
  body: string;
  /** When it arrived, epoch ms: its timestamp is judged against this, not the time it is processed. */
  receivedAt: number;
}

/** A kept request as {@link KeptRequestStore.list} gives it: enough to tell whether a token matches. */
export interface KeptSummary {
  id: string;
  tokenSha256: string;
}

/** The bounds a {@link KeptRequestStore} keeps within, from the receiver's options. */
export interface KeepLimits {
  /** Most requests kept at once. */
  maxCount: number;
  /** Most bytes kept at once (body and headers, as stored). */
  maxBytes: number;
  /**
   * When the store may forget what it keeps, epoch ms: a little after the rotation window
   * ends (the receiver drops and counts them at the end; this is the backstop when no
   * receiver is left to do it).
   */
  until: number;
}

/**
 * Where a dedup store keeps requests during a rotation window, shared by every receiver
 * that uses the store (memory: one process; Redis and Postgres: every instance). Optional on
 * a `DedupStore`; without it a receiver keeps requests in its own memory.
 */
export interface KeptRequestStore {
  /** Keeps one request; false when the bounds are reached (it is then answered 503 without being kept). */
  keep(request: KeptRequest, limits: KeepLimits): boolean | Promise<boolean>;
  /**
   * What is kept and not yet expired: ids and token hashes only, so a re-check reads no
   * bodies until a token matches.
   */
  list(): KeptSummary[] | Promise<KeptSummary[]>;
  /**
   * Removes one and returns it: to exactly one caller across every instance, which then
   * processes it; undefined for every other caller.
   */
  take(id: string): KeptRequest | undefined | Promise<KeptRequest | undefined>;
  /** Drops everything kept (the window ended); resolves to how many were dropped. */
  clear(): number | Promise<number>;
}

/** The bytes a kept request counts against `maxBytes`. */
export function keptSize(request: KeptRequest): number {
  let size = request.body.length + request.tokenSha256.length;
  for (const [name, value] of Object.entries(request.headers)) size += name.length + value.length;
  return size;
}

/**
 * Kept requests in this process's memory: the memory store's, and the receiver's own when its
 * store keeps none.
 */
export function memoryKeptRequests(now: () => number = Date.now): KeptRequestStore {
  const kept = new Map<string, { request: KeptRequest; size: number; until: number }>();
  let bytes = 0;
  // Requests that expired before a clear: counted by the next clear, so none is dropped unseen.
  let expired = 0;
  const expire = () => {
    const time = now();
    for (const [id, entry] of kept) {
      if (entry.until > time) continue;
      kept.delete(id);
      bytes -= entry.size;
      expired++;
    }
  };
  return {
    keep(request, limits) {
      expire();
      const size = keptSize(request);
      if (kept.size >= limits.maxCount || bytes + size > limits.maxBytes) return false;
      kept.set(request.id, { request, size, until: limits.until });
      bytes += size;
      return true;
    },
    list() {
      expire();
      return [...kept.values()].map(({ request }) => ({ id: request.id, tokenSha256: request.tokenSha256 }));
    },
    take(id) {
      expire();
      const entry = kept.get(id);
      if (!entry) return undefined;
      kept.delete(id);
      bytes -= entry.size;
      return entry.request;
    },
    clear() {
      const dropped = kept.size + expired;
      kept.clear();
      bytes = 0;
      expired = 0;
      return dropped;
    },
  };
}
