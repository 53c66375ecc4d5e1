import { parseArgs, type ParseArgsConfig } from 'node:util';
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
type StrictConfig<T extends Options> = { args: string[]; options: T; strict: true; allowPositionals: false };
/** The flags parseArgs found, typed from the option definitions. */
export type Flags<T extends Options> = ReturnType<typeof parseArgs<StrictConfig<T>>>['values'];

/** node:util parseArgs, strict, with its errors turned into usage errors. */
export function parseFlags<T extends Options>(args: string[], options: T): Flags<T> {
  try {
    return parseArgs<StrictConfig<T>>({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A whole number from `min` on, for flags like --repeat and --stale. */
export function wholeNumber(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${flag} must be a whole number from ${min} on, got "${value}".`);
  return Number(value);
}
