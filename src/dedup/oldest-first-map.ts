/**
 * A Map that finds its oldest key in constant time. A Map keeps insertion order, but each
 * delete leaves a hole at the front that every new iterator walks again until V8 rebuilds
 * the table: a store that evicts or sweeps from the front through fresh iterators spends
 * most of its time there. This one keeps one cursor that never walks a hole twice.
 *
 * Every key behind the cursor has been deleted, except `frontKey` itself; a key written
 * again after a delete lands at the young end, ahead of the cursor, so nothing live is ever
 * left behind it.
 */
export class OldestFirstMap<V> {
  private readonly map = new Map<string, V>();
  private cursor: Iterator<string> | undefined;
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
    // long-lived front key would keep them all. A new one is cheap here, as growing compacts
    // the holes away.
    if (this.map.size > size && (size & (size - 1)) === 0) this.cursor = undefined;
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** The oldest key, or undefined when the map is empty. */
  oldestKey(): string | undefined {
    const key = this.frontKey;
    // Still there and never deleted in between: a key added again would hold a new value.
    if (key !== undefined && this.map.get(key) === this.frontValue && this.map.has(key)) return key;
    this.cursor ??= this.map.keys();
    const next = this.cursor.next();
    if (next.done) {
      // A finished iterator never sees later keys, so the next call starts a new one.
      this.cursor = this.frontKey = this.frontValue = undefined;
      return undefined;
    }
    this.frontKey = next.value;
    this.frontValue = this.map.get(next.value);
    return next.value;
  }
}
