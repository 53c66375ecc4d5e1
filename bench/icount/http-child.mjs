// Child of bench/icount.mjs, run under callgrind: `node http-child.mjs <framework>` serves that
// one framework's bench app (bench/lib/apps.mjs: /bare and /ours) and, on a `mark` message,
// calls os.loadavg(): libuv's uv_loadavg, which nothing else here calls, so callgrind's
// `--dump-before=uv_loadavg` ends a counting window exactly there.

import { loadavg } from 'node:os';
import { startOne } from '../lib/apps.mjs';

process.on('message', (message) => {
  if (message?.mark === undefined) return;
  loadavg();
  process.send({ marked: message.mark });
});
process.send({ port: await startOne(process.argv[2]) });
