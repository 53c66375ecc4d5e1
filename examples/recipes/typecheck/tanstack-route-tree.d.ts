// What TanStack Router's generator writes into src/routeTree.gen.ts for this route, reduced
// to the declarations `createFileRoute('/webhook')` needs; importing the Start package adds
// the `server` route option, as the generated file does.
import type { AnyRootRoute } from '@tanstack/react-router';
import type {} from '@tanstack/react-start';

declare module '@tanstack/react-router' {
  interface FileRoutesByPath {
    '/webhook': {
      id: '/webhook';
      path: '/webhook';
      fullPath: '/webhook';
      preLoaderRoute: unknown;
      parentRoute: AnyRootRoute;
    };
  }
}
