/** The longest a rotation window may be armed ahead of now: 24 h. */
export const MAX_ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The default of `tokenCacheMs`: how long a token source's answer is kept. */
export const DEFAULT_TOKEN_CACHE_MS = 60_000;

/**
 * When a rotation window ends: a `Date`, epoch milliseconds, or an ISO 8601 string. At most
 * 24 h ahead.
 */
export type RotationDeadline = Date | number | string;

/**
 * What a token source returns: the current token, a list (first is current, the others still
 * accepted), or the list with a rotation window.
 */
export type TokenSourceResult =
  | string
  | readonly string[]
  | { tokens: string | readonly string[]; rotatingUntil?: RotationDeadline | null };

/**
 * A function the receiver calls for its tokens, synchronous or async: a secret manager, a
 * database row, a file. Its answer is kept for `tokenCacheMs`, and it is called again at once
 * (at most once a second) when a delivery presents a token it does not know.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({
 *   token: async () => (await secrets.getSecretValue({ SecretId: 'webhook-token' })).SecretString!,
 * });
 * ```
 */
export type TokenSource = () => TokenSourceResult | Promise<TokenSourceResult>;

/** A source's answer, checked: the tokens in order, and the window's end in epoch ms if armed. */
export interface TokenList {
  tokens: readonly string[];
  rotatingUntil: number | undefined;
}

/**
 * Checks what a source (or the `token` option) gave. Throws a TypeError naming the fix; the
 * caller decides whether that is a start-up error or a failed read.
 */
export function readTokenList(value: unknown, now: () => number, label: string): TokenList {
  const shaped = typeof value === 'object' && value !== null && !Array.isArray(value);
  const tokens = shaped ? (value as { tokens?: unknown }).tokens : value;
  const list = typeof tokens === 'string' ? [tokens] : tokens;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    list.some((token) => typeof token !== 'string' || token.length === 0)
  ) {
    throw new TypeError(
      `${label} must be a non-empty string (or a non-empty array of them). Is WEBHOOK_TOKEN set? ` +
        'The token is shown once in Profile Settings → CMS Integration. ' +
        'It may also be a function returning either, or { tokens, rotatingUntil? }.' +
        (value === undefined ? ' Receiving for many sites at one endpoint? Pass tenants instead of token.' : ''),
    );
  }
  const deadline = shaped ? (value as { rotatingUntil?: unknown }).rotatingUntil : undefined;
  return { tokens: list as string[], rotatingUntil: readDeadline(deadline, now, `${label}'s rotatingUntil`) };
}

/**
 * A rotation deadline as epoch ms; undefined when unset. Throws when it cannot be read or is
 * more than 24 h ahead: a window left armed for days would answer 503 to every stale token.
 */
export function readDeadline(value: unknown, clock: () => number, label: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  // The clock is read only for a deadline: a test's scripted clock sees no extra call.
  const now = clock();
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number'
        ? value
        : typeof value === 'string' && value.trim() !== ''
          ? Date.parse(value)
          : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new TypeError(
      `${label} must be a Date, epoch milliseconds or an ISO 8601 string such as ` +
        `'${new Date(now + 3_600_000).toISOString()}'; got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}.`,
    );
  }
  if (ms > now + MAX_ROTATION_WINDOW_MS) {
    throw new RangeError(
      `${label} is ${Math.round((ms - now) / 3_600_000)} h ahead; a rotation window may be armed at most 24 h ahead. ` +
        'Arm it just before regenerating the token, for an hour or so.',
    );
  }
  return ms;
}
