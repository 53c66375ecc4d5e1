/** A mistake in how the command was called: exit code 2, with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit codes, as documented in `--help`. */
export const EXIT = { delivered: 0, failed: 1, usage: 2 } as const;
