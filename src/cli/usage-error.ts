/** A mistake in how the command was called: exit code 2, with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit codes, as documented in `--help`. */
export const EXIT = { delivered: 0, failed: 1, usage: 2 } as const;

/**
 * Reads a command's inputs, collecting every usage error instead of stopping at the first,
 * so a missing token does not hide a missing --url: the user fixes everything in one go.
 *
 * @example
 * ```ts
 * const inputs = new Inputs();
 * const token = inputs.take(() => tokenFrom(flags['token-env'], io.env));
 * const url = inputs.take(() => urlFrom(flags.url));
 * inputs.check(); // throws one UsageError naming both, if both are missing
 * ```
 */
export class Inputs {
  private readonly problems: string[] = [];

  /** The value `read` returns, or undefined after noting its usage error. */
  take<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      this.problems.push(error.message);
      return undefined;
    }
  }

  /** Notes a usage error found without a reader. */
  add(message: string): void {
    this.problems.push(message);
  }

  /** Throws one UsageError listing every problem noted, if any. */
  check(): void {
    if (this.problems.length === 1) throw new UsageError(this.problems[0]!);
    if (this.problems.length > 1)
      throw new UsageError(
        `${this.problems.length} problems with the command line:\n  - ${this.problems.join('\n  - ')}`,
      );
  }
}
