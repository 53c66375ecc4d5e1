// koa2 is `npm:koa@2`: the Koa 3 typings (@types/koa) cover the calls the tests make on it.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}

// koa-bodyparser ships no typings (they live in @types/koa-bodyparser, which the tests do not need).
declare module 'koa-bodyparser' {
  import type { Middleware } from 'koa';
  export default function bodyParser(options?: { jsonLimit?: string; enableTypes?: string[] }): Middleware;
}
