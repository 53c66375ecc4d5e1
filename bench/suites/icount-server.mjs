// Child of bench/icount-adapters.mjs, run under callgrind: serves one build's bench servers
// (its bench/suites/http-servers.mjs, the path in argv) and, on a `mark` message, calls
// os.loadavg(). That is libuv's uv_loadavg, which nothing else in the process calls, so
// callgrind's `--dump-before=uv_loadavg` ends a counting window exactly there.

import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';

process.on('message', (message) => {
  if (!message?.mark) return;
  loadavg();
  process.send({ marked: message.mark });
});
await import(pathToFileURL(process.argv[2]).href);
