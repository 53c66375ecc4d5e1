import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseErrorMessage } from './parse-errors.js';
import { UsageError } from './usage-error.js';

/** Where the CLI writes and what it reads from the environment; one object so tests and main share the code. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
}

/**
 * The same output with every occurrence of `secret` masked. The CLI never prints the token
 * itself, but an endpoint could echo it back in a body or an error.
 */
export function redacting(io: Io, secret: string | undefined): Io {
  if (!secret) return io;
  const mask = (text: string) => text.split(secret).join('***');
  return { env: io.env, stdout: (text) => io.stdout(mask(text)), stderr: (text) => io.stderr(mask(text)) };
}

type Options = NonNullable<ParseArgsConfig['options']>;
type StrictConfig<T extends Options> = { args: string[]; options: T; strict: true; allowPositionals: boolean };
/** The flags parseArgs found, typed from the option definitions. */
export type Flags<T extends Options> = ReturnType<typeof parseArgs<StrictConfig<T>>>['values'];

/** node:util parseArgs, strict, with its errors turned into usage errors naming the flag and the fix. */
export function parseFlags<T extends Options>(args: string[], options: T, command: string): Flags<T> {
  return parseCommandLine(args, options, command, false).flags;
}

/** The same, also returning the arguments that are not flags (such as probe's URL). */
export function parseCommandLine<T extends Options>(
  args: string[],
  options: T,
  command: string,
  allowPositionals = true,
): { flags: Flags<T>; positionals: string[] } {
  rejectTokenFlag(args);
  try {
    const { values, positionals } = parseArgs<StrictConfig<T>>({ args, options, strict: true, allowPositionals });
    return { flags: values, positionals };
  } catch (error) {
    throw parseErrorMessage(error, command, options);
  }
}

/** A token on the command line shows in `ps` and in shell history: it is refused, with the way to pass it instead. */
function rejectTokenFlag(args: string[]): void {
  if (args.some((arg) => arg === '--token' || arg.startsWith('--token=')))
    throw new UsageError(
      '--token is not accepted: a token on the command line shows in the process list and in shell history. ' +
        'Put it in the environment instead: WEBHOOK_TOKEN, or any variable named with --token-env NAME.',
    );
}

/** Writes one JSON document on its own line, for `--json`. */
export function writeJson(io: Io, value: unknown): void {
  io.stdout(`${JSON.stringify(value)}\n`);
}

/** A whole number from `min` on, for flags like --repeat and --stale. */
export function wholeNumber(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${flag} must be a whole number from ${min} on, got "${value}".`);
  return Number(value);
}
