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
  /**
   * Why the answer's `rotatingUntil` was ignored (unreadable, in seconds, or over 24 h ahead):
   * its tokens still count, so a bad deadline never turns the new token into a 401.
   */
  windowProblem?: Error;
}

/** The longest token the service issues, and the longest a rotation window answers 503 for. */
export const MAX_TOKEN_LENGTH = 512;

/**
 * Checks what a source (or the `token` option) gave. Throws a TypeError naming the fix; the
 * caller decides whether that is a start-up error or a failed read. A bad `rotatingUntil` in
 * an answer is set aside in `windowProblem` rather than thrown: the tokens are still good.
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
  for (let i = 0; i < list.length; i++) checkTokenShape(list[i] as string, list.length > 1 ? `${label}[${i}]` : label);
  const deadline = shaped ? (value as { rotatingUntil?: unknown }).rotatingUntil : undefined;
  try {
    return { tokens: list as string[], rotatingUntil: readDeadline(deadline, now, `${label}'s rotatingUntil`) };
  } catch (problem) {
    return { tokens: list as string[], rotatingUntil: undefined, windowProblem: problem as Error };
  }
}

/**
 * Throws unless the token could be one the service issued: 1 to 512 characters of 0x21 to
 * 0x7E. A trailing newline or space (a secret file, a `.env` line) would otherwise make every
 * delivery a 401, which the service never retries. Names the position and character code,
 * never the token.
 */
export function checkTokenShape(token: string, label: string): void {
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new RangeError(
      `${label} is ${token.length} characters long; the service's tokens are at most ${MAX_TOKEN_LENGTH}. ` +
        'Is it the token from Profile Settings → CMS Integration, or a whole file?',
    );
  }
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code >= 0x21 && code <= 0x7e) continue;
    const where = i === token.length - 1 ? 'at its end' : i === 0 ? 'at its start' : `at position ${i + 1}`;
    throw new TypeError(
      `${label} has ${characterName(code)} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) ${where}, ` +
        `character ${i + 1} of ${token.length}; the service's tokens are printable ASCII without spaces. ` +
        'A secret file or .env line often ends in a newline: trim it, e.g. process.env.WEBHOOK_TOKEN?.trim().',
    );
  }
}

function characterName(code: number): string {
  if (code === 0x0a || code === 0x0d) return 'a line break';
  if (code === 0x20 || code === 0xa0) return 'a space';
  if (code === 0x09) return 'a tab';
  return code < 0x20 || code === 0x7f ? 'a control character' : 'a non-ASCII character';
}

/**
 * The `rotatingUntil` option, checked once by createReceiver: besides {@link readDeadline}'s
 * checks, it must lie ahead. A window already over arms nothing, so every delivery signed with
 * the regenerated token would be a 401 the service never retries.
 */
export function readDeadlineOption(value: unknown, clock: () => number): number | undefined {
  const label = 'createReceiver: rotatingUntil';
  const deadline = readDeadline(value, clock, label);
  if (deadline !== undefined && deadline <= clock()) {
    throw new RangeError(
      `${label} is ${new Date(deadline).toISOString()}, already past: the window would never arm. ` +
        `Set it to the window's end, e.g. new Date(Date.now() + 60 * 60 * 1000) for an hour from now.`,
    );
  }
  return deadline;
}

/**
 * A rotation deadline as epoch ms; undefined when unset. Throws when it cannot be read, looks
 * like seconds (a number below 10^11, which as milliseconds is 1973), or is more than 24 h
 * ahead: a window left armed for days would answer 503 to every stale token.
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
  if (typeof value === 'number' && value < 1e11) {
    throw new RangeError(
      `${label} is ${value}, which looks like Unix seconds; it takes epoch milliseconds (${value} * 1000) or a Date.`,
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
