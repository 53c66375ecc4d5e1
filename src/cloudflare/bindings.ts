// The few members of the Workers runtime's Durable Object API this entry uses, typed here so
// that the package needs neither `@cloudflare/workers-types` nor `cloudflare:workers`: Node
// type-checks and bundles it like any other entry. The real binding and state fit these shapes.

/**
 * What `durableObjectDedupStore` needs of a Durable Object namespace binding (`env.DEDUP`):
 * `idFromName` and `get`, as every `DurableObjectNamespace` has.
 */
export interface DurableObjectNamespaceLike<Id = unknown> {
  idFromName(name: string): Id;
  get(id: Id): DurableObjectStubLike;
}

/** A Durable Object stub: the store calls the object with `fetch`. */
export interface DurableObjectStubLike {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string },
  ): Promise<DurableObjectResponseLike>;
}

/** The part of a `Response` the store reads. */
export interface DurableObjectResponseLike {
  readonly status: number;
  text(): Promise<string>;
}

/**
 * The Durable Object's state as the runtime hands it to the constructor (`ctx` / `state`):
 * only its transactional storage is used.
 */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
}

/** The key-value and alarm methods of Durable Object storage, on both the SQLite and the key-value backend. */
export interface DurableObjectStorageLike {
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  deleteAll(): Promise<void>;
  list(options: { prefix: string }): Promise<Map<string, unknown>>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
}
