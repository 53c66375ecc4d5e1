import { resolve } from 'node:path';
import { DEFAULT_INSPECTOR_FILE } from '../../inspector/index.js';
import { httpUrl } from '../../sender/index.js';
import { INSPECT_HELP } from '../help.js';
import { type Io, parseFlags, wholeNumber } from '../io.js';
import { EXIT, Inputs } from '../usage-error.js';
import { startInspectorServer } from './server.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const OPTIONS = {
  file: { type: 'string' },
  target: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'token-env': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `webhook-cms-receiver inspect`: serves the inspector page for the file `createInspector`
 * writes, until interrupted. Binds to 127.0.0.1 unless told otherwise, and refuses any other
 * address without `--allow-remote`: the page shows article bodies and can send deliveries.
 */
export async function inspectCommand(args: string[], io: Io): Promise<number> {
  const flags = parseFlags(args, OPTIONS, 'inspect');
  if (flags.help) {
    io.stdout(INSPECT_HELP);
    return EXIT.delivered;
  }
  // Every input is read before any is refused, so one run names every mistake.
  const inputs = new Inputs();
  const host = flags.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && !flags['allow-remote'])
    inputs.add(
      `refusing to serve the inspector on ${host}: it shows article bodies. Add --allow-remote if you mean it.`,
    );
  if (flags.target !== undefined && !httpUrl(flags.target))
    inputs.add(`--target must be an http(s) URL, e.g. http://127.0.0.1:3000/webhook (got "${flags.target}").`);
  const port = inputs.take(() => wholeNumber(flags.port, '--port', 0)) ?? 0;
  inputs.check();
  const tokenEnv = flags['token-env'] ?? 'WEBHOOK_TOKEN';
  const file = flags.file ?? DEFAULT_INSPECTOR_FILE;
  const server = await startInspectorServer({
    file,
    target: flags.target,
    token: io.env[tokenEnv] || undefined,
    host: host === 'localhost' ? '127.0.0.1' : host,
    port,
  });
  if (flags.json) io.stdout(`${JSON.stringify({ url: server.url })}\n`);
  else {
    io.stdout(`Inspector: ${server.url}\n`);
    io.stdout(`Reading ${resolve(file)}${flags.target ? `; replays go to ${flags.target}` : ''}. Ctrl-C stops.\n`);
  }
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await server.close();
  return EXIT.delivered;
}
