/**
 * A Map that finds its oldest key in amortised constant time. A Map keeps insertion order, but each
 * delete leaves a hole at the front that every new iterator walks again until V8 rebuilds
 * the table: a store that evicts or sweeps from the front through fresh iterators spends
 * most of its time there. This one keeps one cursor that never walks a hole twice, and
 * remembers the oldest entry so that asking again costs no lookup.
 *
 * Every key behind the cursor has been deleted, except the oldest itself; a key written
 * again after a delete lands at the young end, ahead of the cursor, so nothing live is ever
 * left behind it. Values must not be undefined.
 */
export class OldestFirstMap<V> {
  private readonly map = new Map<string, V>();
  private cursor: Iterator<[string, V]> | undefined;
  /** The oldest key and its value; both undefined once that key is gone, until the cursor moves on. */
  private frontKey: string | undefined;
  private frontValue: V | undefined;

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  /** Adds a key at the young end, or replaces the value of a key where it stands. */
  set(key: string, value: V): void {
    const { size } = this.map;
    this.map.set(key, value);
    if (key === this.frontKey) this.frontValue = value;
    // V8 grows the table when the size reaches a power of two, and keeps each outgrown table
    // alive for as long as an iterator over it has not moved on: a cursor parked on a
    // long-lived oldest key would keep them all. A new one is cheap here, as growing
    // compacts the holes away.
    if (this.map.size > size && (size & (size - 1)) === 0) this.cursor = undefined;
  }

  delete(key: string): void {
    this.map.delete(key);
    // Forgotten by name too, so the key written again (at the young end) is not taken for it.
    if (key === this.frontKey) this.frontKey = this.frontValue = undefined;
  }

  /** The oldest key, or undefined when the map is empty. Its value is then {@link oldestValue}. */
  oldestKey(): string | undefined {
    if (this.frontValue !== undefined) return this.frontKey;
    // Entries, not keys: the value comes along without a second lookup in a large table.
    this.cursor ??= this.map.entries();
    const next = this.cursor.next();
    if (next.done) {
      // A finished iterator never sees later keys, so the next call starts a new one.
      this.cursor = this.frontKey = undefined;
      return undefined;
    }
    [this.frontKey, this.frontValue] = next.value;
    return this.frontKey;
  }

  /** The value of the key {@link oldestKey} last returned. */
  get oldestValue(): V | undefined {
    return this.frontValue;
  }
}
