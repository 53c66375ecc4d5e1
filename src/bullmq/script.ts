/** A Lua script run on the client BullMQ gives (`queue.client`, `worker.client`). */
export interface Script {
  /** A name unique to this package, for clients that register scripts by name. */
  name: string;
  keys: number;
  lua: string;
}

interface ScriptClient {
  defineCommand?(name: string, definition: { numberOfKeys: number; lua: string }): void;
  runCommand?(name: string, args: unknown[]): Promise<unknown>;
  eval?(lua: string, keys: number, ...args: unknown[]): Promise<unknown>;
}

const defined = new WeakMap<object, Set<string>>();

/**
 * Runs `script` with its KEYS then ARGV. BullMQ 5's newer releases wrap the client and run
 * scripts by name (`defineCommand`, `runCommand`); earlier 5.x releases hand out the ioredis
 * client itself, which has `eval`.
 */
export async function runScript(client: unknown, script: Script, args: readonly (string | number)[]): Promise<unknown> {
  const c = client as ScriptClient;
  if (typeof c.runCommand === 'function' && typeof c.defineCommand === 'function') {
    const names = defined.get(c) ?? new Set<string>();
    if (!names.has(script.name)) {
      c.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
      names.add(script.name);
      defined.set(c, names);
    }
    return c.runCommand(script.name, [...args]);
  }
  if (typeof c.eval === 'function') return c.eval(script.lua, script.keys, ...args);
  throw new TypeError('webhook-cms-receiver/bullmq: this BullMQ client can run no Lua script (no runCommand, no eval)');
}
