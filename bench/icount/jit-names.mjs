// Names for the JavaScript in a callgrind dump. Callgrind sees V8's optimised code only as
// addresses (`0x000000000d0b1080`), so a profile says where a call's instructions went among
// C++ and builtins but not which of our functions spent them. Node's `--perf-basic-prof`
// writes /tmp/perf-<pid>.map (start, size, name per piece of code it makes); this rewrites a
// dump's addresses as those names (`JS:*plain file:///…/chunk.js:250:15`, `*` optimised), so
// that `callgrind_annotate`, `--tree=caller` included, names them.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The Node flag that makes the map. */
export const JIT_MAP_FLAG = '--perf-basic-prof';

/**
 * Rewrites the JIT addresses in each dump as names from the map of the process that wrote
 * them (its pid is in each dump). Returns the pids of the dumps it rewrote; a dump without a
 * map is left as it is.
 */
export function nameJitCode(paths) {
  const maps = new Map();
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    const pid = /^pid: (\d+)$/m.exec(text)?.[1];
    const mapPath = `/tmp/perf-${pid}.map`;
    if (pid === undefined || !existsSync(mapPath)) continue;
    if (!maps.has(pid)) maps.set(pid, readMap(mapPath));
    const lookup = maps.get(pid);
    writeFileSync(
      path,
      text.replace(/\b0x([0-9a-f]{16})\b/g, (address, hex) => lookup(Number.parseInt(hex, 16)) ?? address),
    );
  }
  return [...maps.keys()];
}

/**
 * The map as a lookup from an address to the name of the code holding it. V8 reuses the
 * addresses of code it frees, so a later line wins over an earlier one it overlaps.
 */
function readMap(path) {
  const pieces = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match)
      pieces.push({ start: Number.parseInt(match[1], 16), size: Number.parseInt(match[2], 16), name: match[3] });
  }
  return (address) => {
    for (let i = pieces.length - 1; i >= 0; i--) {
      const { start, size, name } = pieces[i];
      if (address >= start && address < start + size) return name;
    }
    return undefined;
  };
}
