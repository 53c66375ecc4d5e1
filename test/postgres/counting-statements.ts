/**
 * Wraps a client so every statement the store sends is counted: a pg `query`, a postgres.js
 * `unsafe`, a PGlite `query`. A Proxy, so the real client does the work.
 */
export function countingStatements<C extends object>(client: C): { client: C; statements: string[] } {
  const statements: string[] = [];
  const counted = new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || (property !== 'query' && property !== 'unsafe')) return value;
      return (...args: unknown[]) => {
        statements.push(String(args[0]).split('\n')[0]!);
        return value.apply(target, args);
      };
    },
  });
  return { client: counted, statements };
}
