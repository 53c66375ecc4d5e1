/**
 * Loads a Node built-in module without a static import, so bundlers for runtimes without it
 * (a Worker without `nodejs_compat`) see no `node:` module and the core stays one build for
 * all. Undefined where the runtime has no `process.getBuiltinModule` (Node before 20.16,
 * Workers without `nodejs_compat`, browsers) or refuses the module.
 */
export function loadBuiltin<T>(id: `node:${string}`): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return proc?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}
