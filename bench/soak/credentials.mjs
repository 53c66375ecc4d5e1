// The token file the receivers read (their token source, or their tenants resolver), written by
// the driver: `{ tenants: [{ id, tokens }], rotatingUntil? }`. Without `--tenants` the
// receivers take tenant 0's tokens as a plain token list. Read on every call of the source,
// which the receiver itself caches for `tokenCacheMs`, so a restarted receiver and a running
// one see the same credentials.

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A fresh token of the shape the service issues. */
export const newToken = () => `whk_soak_${randomBytes(16).toString('hex')}`;

/** Atomic: a receiver never reads a half-written file. */
export function writeCredentials(file, credentials) {
  writeFileSync(`${file}.tmp`, JSON.stringify(credentials));
  renameSync(`${file}.tmp`, file);
}

const read = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The receiver's `token` option: a token source over the file. */
export function tokenSource(file) {
  return () => {
    const { tenants, rotatingUntil } = read(file);
    return rotatingUntil ? { tokens: tenants[0].tokens, rotatingUntil } : { tokens: tenants[0].tokens };
  };
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The receiver's `tenants` option: the tenant whose tokens include the presented one's hash. */
export function tenantResolver(file) {
  return (hash) => {
    for (const tenant of read(file).tenants) {
      if (tenant.tokens.some((token) => sha256(token) === hash)) return { id: tenant.id, token: tenant.tokens };
    }
    return undefined;
  };
}
