import { signDelivery, testPayload } from '../testing/index.js';
import { ROTATION_HELP, ROTATION_STEPS } from './rotation-help.js';
import { tokenFrom, urlFrom } from './inputs.js';
import { parseCommandLine, redacting, writeJson, type Io } from './io.js';
import { EXIT, Inputs } from './usage-error.js';

const OPTIONS = {
  'token-env': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What the endpoint answered an unknown token: whether its rotation window is armed. */
export type WindowState = 'armed' | 'not-armed' | 'token-unavailable' | 'unexpected';
/** What the endpoint answered a test event signed with the token from the environment. */
export type TokenState = 'accepted' | 'unknown' | 'kept-until-known' | 'unexpected' | 'not-checked';

/**
 * `rotation [URL]`: prints the zero-loss rotation steps and, given the endpoint's URL, checks
 * its state: whether the rotation window is armed (from how it answers a random unknown
 * token) and whether it accepts the token in the environment (a signed `test` event). Never
 * prints a token. Exit 1 when the endpoint could not be checked.
 */
export async function rotationCommand(args: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseCommandLine(args, OPTIONS, 'rotation');
  if (flags.help) {
    io.stdout(ROTATION_HELP);
    return EXIT.delivered;
  }
  const inputs = new Inputs();
  if (positionals.length > 1) inputs.add(`rotation takes at most one URL, got ${positionals.length} arguments`);
  const url = positionals.length === 1 ? inputs.take(() => urlFrom(positionals[0])) : undefined;
  const envName = flags['token-env'];
  // The token is optional here: without one, only the window is checked.
  const token =
    envName !== undefined || io.env.WEBHOOK_TOKEN ? inputs.take(() => tokenFrom(envName, io.env)) : undefined;
  inputs.check();
  const out = redacting(io, token);
  if (!url) {
    if (flags.json) writeJson(out, { steps: ROTATION_STEPS });
    else out.stdout(`${ROTATION_STEPS.map((step, i) => `${i + 1}. ${step}`).join('\n')}\n`);
    return EXIT.delivered;
  }
  try {
    const window = await windowState(url);
    const tokenState: TokenState = token ? await tokenStateOf(url, token) : 'not-checked';
    if (flags.json) {
      writeJson(out, { url, window, token: tokenState, steps: ROTATION_STEPS });
    } else {
      out.stdout(`${ROTATION_STEPS.map((step, i) => `${i + 1}. ${step}`).join('\n')}\n\n`);
      out.stdout(`${url}\n  rotation window: ${WINDOW_TEXT[window]}\n  token: ${TOKEN_TEXT[tokenState]}\n`);
    }
    return window === 'unexpected' || tokenState === 'unexpected' ? EXIT.failed : EXIT.delivered;
  } catch (error) {
    out.stderr(`webhook-cms-receiver: could not reach ${url}: ${(error as Error)?.message ?? error}\n`);
    return EXIT.failed;
  }
}

const WINDOW_TEXT: Record<WindowState, string> = {
  armed: 'armed: an unknown token is answered 503 and kept, so no delivery is lost',
  'not-armed': 'not armed: an unknown token is answered 401 (deliveries signed with it are lost)',
  'token-unavailable': 'the token source has given no usable token yet (503 Token unavailable)',
  unexpected: 'unexpected answer to an unknown token (is this the webhook endpoint?)',
};

const TOKEN_TEXT: Record<TokenState, string> = {
  accepted: 'the token in the environment is accepted',
  unknown: 'the token in the environment is NOT accepted (401)',
  'kept-until-known': 'the token in the environment is not known yet; its deliveries are kept (503)',
  unexpected: 'unexpected answer to a test event signed with the token in the environment',
  'not-checked': 'not checked (set WEBHOOK_TOKEN, or name a variable with --token-env, to check one)',
};

/** A random token of the service's shape, which no endpoint knows: its answer tells the window's state. */
async function windowState(url: string): Promise<WindowState> {
  const random = `rotation-check-${crypto.randomUUID()}`;
  const { status, error } = await send(url, random);
  if (status === 401) return 'not-armed';
  if (status === 503 && error === 'Token rotation in progress') return 'armed';
  if (status === 503 && error === 'Token unavailable') return 'token-unavailable';
  return 'unexpected';
}

async function tokenStateOf(url: string, token: string): Promise<TokenState> {
  const { status, error } = await send(url, token);
  if (status === 200) return 'accepted';
  if (status === 401) return 'unknown';
  if (status === 503 && error === 'Token rotation in progress') return 'kept-until-known';
  return 'unexpected';
}

async function send(url: string, token: string): Promise<{ status: number; error: unknown }> {
  const { headers, body } = signDelivery({ token, payload: testPayload(), deliveryId: null });
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const answer = (await response.json().catch(() => ({}))) as { error?: unknown };
  return { status: response.status, error: answer?.error };
}
