import { describe, expect, it } from 'vitest';
import { OldestFirstMap } from './oldest-first-map.js';

function filled(count: number): OldestFirstMap<number> {
  const map = new OldestFirstMap<number>();
  for (let i = 0; i < count; i++) map.set(`k${i}`, i);
  return map;
}

describe('OldestFirstMap', () => {
  it('names the oldest key, then the next one after each delete', () => {
    const map = filled(3);
    expect([map.oldestKey(), map.oldestValue]).toEqual(['k0', 0]);
    map.delete('k0');
    expect(map.oldestKey()).toBe('k1');
    map.delete('k1');
    map.delete('k2');
    expect(map.oldestKey()).toBeUndefined();
  });

  it('keeps a key in its place when its value is replaced', () => {
    const map = filled(2);
    map.oldestKey();
    map.set('k0', 42);
    expect([map.oldestKey(), map.oldestValue]).toEqual(['k0', 42]);
  });

  it('treats a key written again after a delete as the youngest', () => {
    const map = filled(3);
    expect(map.oldestKey()).toBe('k0');
    map.delete('k0');
    map.set('k0', 7);
    expect(map.oldestKey()).toBe('k1');
    map.delete('k1');
    map.delete('k2');
    expect(map.oldestKey()).toBe('k0');
  });

  it('finds keys added after it once reported the map empty', () => {
    const map = new OldestFirstMap<number>();
    expect(map.oldestKey()).toBeUndefined();
    map.set('late', 1);
    expect(map.oldestKey()).toBe('late');
  });

  it('stays exact through growth, deletes in the middle and evictions from the front', () => {
    const map = new OldestFirstMap<number>();
    const model: string[] = [];
    for (let i = 0; i < 5000; i++) {
      map.set(`k${i}`, i);
      model.push(`k${i}`);
      if (i % 7 === 0) {
        const middle = model.splice(model.length >> 1, 1)[0]!;
        map.delete(middle);
      }
      if (model.length > 1000) {
        expect(map.oldestKey()).toBe(model[0]);
        map.delete(model.shift()!);
      }
    }
    expect(map.size).toBe(model.length);
    expect(map.oldestKey()).toBe(model[0]);
  });

  it('keeps its oldest key when a younger one is deleted', () => {
    const map = filled(3);
    expect(map.oldestKey()).toBe('k0');
    map.delete('k2');
    map.delete('k1');
    expect(map.oldestKey()).toBe('k0');
    expect(map.oldestValue).toBe(0);
  });
});
