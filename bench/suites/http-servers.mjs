// Child process of the HTTP bench: one server per framework (bench/lib/apps.mjs), each with
// two routes. Sends the ports to the parent and serves until killed.

import { startAll } from '../lib/apps.mjs';

process.send({ ports: await startAll() });
// An orderly exit on SIGINT lets `--cpu-prof` write its profile when profiling a server.
process.on('SIGINT', () => process.exit(0));
