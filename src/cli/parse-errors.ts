import { UsageError } from './usage-error.js';

/** What each flag's value is called in the help, for "--url needs a value: --url URL". */
const VALUE_NAMES: Readonly<Record<string, string>> = {
  url: 'URL',
  target: 'URL',
  'token-env': 'NAME',
  event: 'EVENT',
  file: 'FILE',
  capture: 'FILE',
  headers: 'FILE',
  body: 'FILE',
  'delivery-id': 'ID',
  repeat: 'N',
  line: 'N',
  stale: 'SECONDS',
  timestamp: 'SECONDS',
  'timeout-ms': 'MS',
  now: 'WHEN',
  host: 'HOST',
  port: 'PORT',
};

/**
 * node:util parseArgs's error as a usage error that names the flag and the fix, instead of
 * the parser's own text ("Option '--url <value>' argument missing").
 */
export function parseErrorMessage(error: unknown, command: string, options: Record<string, unknown>): UsageError {
  const { code, message } = error as { code?: string; message?: string };
  const text = String(message ?? error);
  const flag = /'(-{1,2}[^' ]+)/.exec(text)?.[1] ?? '';
  const known = Object.keys(options)
    .map((name) => `--${name}`)
    .join(', ');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return new UsageError(`unknown option ${flag} for ${command}; its options are ${known}.`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = flag.replace(/^-+/, '');
    if (/does not take an argument/.test(text)) return new UsageError(`${flag} takes no value: write ${flag} alone.`);
    return new UsageError(`${flag} needs a value: ${flag} ${VALUE_NAMES[name] ?? 'VALUE'}.`);
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const stray = /Unexpected argument '([^']*)'/.exec(text)?.[1] ?? '';
    const shown = stray.length > 60 ? `${stray.slice(0, 60)}…` : stray;
    return new UsageError(
      `${command} takes no bare argument ("${shown}"): every input is a flag, such as --url URL; its options are ${known}.`,
    );
  }
  return new UsageError(`cannot read the command line: ${text}`);
}
