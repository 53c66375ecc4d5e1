import { randomUUID } from 'node:crypto';

/**
 * A table name no other test uses. Apart from postgres-clients.ts so that a file needing only
 * a name (PGlite) does not start the throwaway server that module starts on import.
 */
export const freshTable = (prefix = 'wcr') => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
