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

/** The bounds a {@link KeptRequestStore} keeps within, from the receiver's options. */
export interface KeepLimits {
  /** Most requests kept at once. */
  maxCount: number;
  /** Most bytes kept at once (body and headers, as stored). */
  maxBytes: number;
  /** When the rotation window ends, epoch ms: everything kept is dropped by then. */
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
  /** Every request kept and not yet expired. */
  list(): KeptRequest[] | Promise<KeptRequest[]>;
  /** Removes one; true for exactly one caller across every instance, which then processes it. */
  take(id: string): boolean | Promise<boolean>;
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
  const expire = () => {
    const time = now();
    for (const [id, entry] of kept) {
      if (entry.until > time) continue;
      kept.delete(id);
      bytes -= entry.size;
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
      return [...kept.values()].map((entry) => entry.request);
    },
    take(id) {
      const entry = kept.get(id);
      if (!entry) return false;
      kept.delete(id);
      bytes -= entry.size;
      return true;
    },
    clear() {
      const dropped = kept.size;
      kept.clear();
      bytes = 0;
      return dropped;
    },
  };
}
