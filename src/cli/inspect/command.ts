import { DEFAULT_INSPECTOR_FILE } from '../../testing/inspector.js';
import { type Io, parseFlags, wholeNumber } from '../io.js';
import { UsageError } from '../usage-error.js';
import { startInspectorServer } from './server.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * `webhook-cms-receiver inspect`: serves the inspector page for the file `createInspector`
 * writes, until interrupted. Binds to 127.0.0.1 unless told otherwise, and refuses any other
 * address without `--allow-remote`: the page shows article bodies and can send deliveries.
 */
export async function inspectCommand(args: string[], io: Io): Promise<number> {
  const flags = parseFlags(args, {
    file: { type: 'string' },
    target: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    'token-env': { type: 'string' },
    json: { type: 'boolean' },
  });
  const host = flags.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && !flags['allow-remote']) {
    throw new UsageError(
      `refusing to serve the inspector on ${host}: it shows article bodies. Add --allow-remote if you mean it.`,
    );
  }
  if (flags.target !== undefined && !/^https?:\/\//.test(flags.target)) {
    throw new UsageError(
      `--target must be an http(s) URL, e.g. http://127.0.0.1:3000/webhook (got "${flags.target}").`,
    );
  }
  const tokenEnv = flags['token-env'] ?? 'WEBHOOK_TOKEN';
  const server = await startInspectorServer({
    file: flags.file ?? DEFAULT_INSPECTOR_FILE,
    target: flags.target,
    token: io.env[tokenEnv] || undefined,
    host: host === 'localhost' ? '127.0.0.1' : host,
    port: wholeNumber(flags.port, '--port', 0) ?? 0,
  });
  if (flags.json) io.stdout(`${JSON.stringify({ url: server.url })}\n`);
  else {
    io.stdout(`Inspector: ${server.url}\n`);
    io.stdout(
      `Reading ${flags.file ?? DEFAULT_INSPECTOR_FILE}${flags.target ? `; replays go to ${flags.target}` : ''}. Ctrl-C stops.\n`,
    );
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
