import { articleSyncPayload, articleTrashPayload, testPayload } from '../sender/index.js';
import { httpUrl } from '../sender/index.js';
import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

const EVENTS = ['article.sync', 'article.trash', 'test'] as const;
type EventName = (typeof EVENTS)[number];

/** The token from the variable --token-env names, or WEBHOOK_TOKEN. */
export function tokenFrom(envName: string | undefined, env: Record<string, string | undefined>): string {
  const name = envName ?? 'WEBHOOK_TOKEN';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new UsageError(
      `--token-env takes the name of an environment variable, such as WEBHOOK_TOKEN, not "${name.slice(0, 40)}".`,
    );
  const token = env[name];
  if (!token) {
    throw new UsageError(
      envName === undefined
        ? 'missing token: set WEBHOOK_TOKEN (or name another variable with --token-env NAME) to the token shown once in Profile Settings → CMS Integration.'
        : `missing token: the environment variable ${name} (from --token-env) is not set or empty.`,
    );
  }
  return token;
}

/** An http(s) URL, or a usage error showing what one looks like. */
export function urlFrom(flag: string | undefined): string {
  if (!flag)
    throw new UsageError("missing --url: give the endpoint's full address, e.g. --url http://127.0.0.1:3000/webhook");
  const url = httpUrl(flag);
  if (!url) {
    throw new UsageError(
      `invalid --url "${flag}": give the full address with http:// or https://, e.g. http://127.0.0.1:3000/webhook`,
    );
  }
  return url.href;
}

export function eventFrom(flag: string | undefined): EventName | undefined {
  if (flag === undefined) return undefined;
  if (!(EVENTS as readonly string[]).includes(flag))
    throw new UsageError(`unknown event "${flag}": use one of ${EVENTS.join(', ')}.`);
  return flag as EventName;
}

export function readFile(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new UsageError(`cannot read --file ${path} (${code}): check the path, relative to ${process.cwd()}.`);
  }
}

/** The sample envelope for an event. */
export function samplePayload(event: EventName, article?: Record<string, unknown>): object {
  if (event === 'article.sync') return articleSyncPayload({ article });
  if (event === 'article.trash') return articleTrashPayload({ article });
  if (article)
    throw new UsageError(
      '--file with an article makes no sense for the test event (it carries none); drop --file, or give a whole envelope.',
    );
  return testPayload();
}

/**
 * What `send` delivers: a whole envelope from --file as its exact text, an article from --file
 * inside the sample envelope for --event, or the sample envelope alone.
 */
export function sendPayload(
  eventFlag: string | undefined,
  file: string | undefined,
): { payload: object | string; event: string } {
  const event = eventFrom(eventFlag);
  if (file === undefined) {
    if (!event)
      throw new UsageError(
        'missing --event: use article.sync, article.trash or test (or --file with a whole envelope).',
      );
    return { payload: samplePayload(event), event };
  }
  const text = new TextDecoder().decode(readFile(file));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--file ${file} is not valid JSON (${(error as Error).message}); the service only sends JSON.`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new UsageError(`--file ${file} must hold a JSON object: an envelope or an article.`);
  const envelopeEvent = (json as { event?: unknown }).event;
  if (typeof envelopeEvent === 'string') {
    if (event && event !== envelopeEvent)
      throw new UsageError(
        `--event ${event} disagrees with the file's "event": "${envelopeEvent}"; drop --event or fix the file.`,
      );
    return { payload: text, event: envelopeEvent };
  }
  if (!event)
    throw new UsageError(
      `--file ${file} holds an article, not an envelope: add --event article.sync or article.trash.`,
    );
  return { payload: samplePayload(event, json as Record<string, unknown>), event };
}
