import { UsageError } from './usage-error.js';

/** The flags that name the profile an article names, shared by `send` and `probe`. */
export const PROFILE_OPTIONS = {
  'profile-id': { type: 'string' },
  'profile-domain': { type: 'string' },
} as const;

/** Their lines in a command's help, aligned with the other options. */
export const PROFILE_HELP = `  --profile-id ID      with --profile-domain: the profile the articles name (a
  --profile-domain D   tenant-mode endpoint answers 403 to another site's profile)`;

/** A profile as the payload factories and `probeEndpoint` take it. */
export interface ProfileFlag {
  id: string;
  domain: string;
}

/**
 * The profile from --profile-id and --profile-domain, undefined when neither is given; a usage
 * error when only one is, since a tenant-mode site checks both.
 */
export function profileFrom(flags: { 'profile-id'?: string; 'profile-domain'?: string }): ProfileFlag | undefined {
  const id = flags['profile-id'];
  const domain = flags['profile-domain'];
  if (id === undefined && domain === undefined) return undefined;
  if (id === undefined || domain === undefined)
    throw new UsageError('--profile-id and --profile-domain go together: the profile the articles name');
  return { id, domain };
}

/**
 * What `send` delivers with the profile the flags name: a sample article envelope with its
 * `profile` replaced. A whole envelope from --file, or the test event, names its own profile
 * (none for a test), so the flags are a usage error there rather than silently ignored.
 */
export function withProfile(payload: object | string, profile: ProfileFlag | undefined): object | string {
  if (profile === undefined) return payload;
  if (typeof payload === 'string')
    throw new UsageError(
      '--profile-id and --profile-domain fill a sample envelope; a whole envelope from --file names its own profile: edit it there.',
    );
  if ((payload as { event?: unknown }).event === 'test')
    throw new UsageError(
      'the test event names no profile: drop --profile-id and --profile-domain, or send an article.',
    );
  return { ...payload, profile };
}
