// The sites table: each site's profile, domain and token, found by the token's SHA-256 (the
// receiver never hands its resolver the token itself), and the token's rotation.
import { createHash } from 'node:crypto';

/** SHA-256 hex of a token: the key a site is found by, as the receiver computes it. */
export const sha256 = (token) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The receiver's `tenants` resolver over the sites table: one indexed lookup by hash, current
 * token or the one before it during a rotation. The tenant's token list puts the current one
 * first.
 *
 * @example
 * const receiver = createReceiver({ tenants: siteResolver(db) });
 *
 * @returns {import('webhook-cms-receiver').TenantResolver}
 */
export function siteResolver(db) {
  return async (tokenSha256) => {
    const [site] = await db.query(
      `SELECT id, profile_id, domain, token, previous_token FROM sites
       WHERE token_sha256 = $1 OR previous_token_sha256 = $1`,
      [tokenSha256],
    );
    if (!site) return undefined;
    return {
      id: site.id,
      token: site.previous_token ? [site.token, site.previous_token] : site.token,
      profileId: site.profile_id,
      domain: site.domain,
    };
  };
}

/** Adds a site with the token its profile's CMS Integration generated. */
export async function addSite(db, { id, profileId, domain, token }) {
  const [taken] = await db.query('SELECT id FROM sites WHERE id = $1', [id]);
  if (taken) throw new Error(`A site with id "${id}" exists; pick another id, or use rotate to change its token.`);
  await assertUnused(db, token);
  await db.query('INSERT INTO sites (id, profile_id, domain, token, token_sha256) VALUES ($1, $2, $3, $4, $5)', [
    id,
    profileId,
    domain.toLowerCase(),
    token,
    sha256(token),
  ]);
}

/**
 * Makes `token` the site's current token and keeps the current one accepted as the previous,
 * until {@link finishRotation}. A rotation already under way is refused: finish it first.
 */
export async function rotateToken(db, id, token) {
  const site = await siteById(db, id);
  if (site.previous_token_sha256) {
    throw new Error(
      `Site "${id}" is already rotating: run finish-rotation ${id} once the service sends with the new token, then rotate again.`,
    );
  }
  await assertUnused(db, token);
  await db.query(
    `UPDATE sites SET previous_token = token, previous_token_sha256 = token_sha256, token = $2, token_sha256 = $3
     WHERE id = $1`,
    [id, token, sha256(token)],
  );
}

/** Drops the site's previous token: from now on only the current one is accepted. */
export async function finishRotation(db, id) {
  const site = await siteById(db, id);
  if (!site.previous_token_sha256) throw new Error(`Site "${id}" is not rotating: nothing to finish.`);
  await db.query('UPDATE sites SET previous_token = NULL, previous_token_sha256 = NULL WHERE id = $1', [id]);
}

/** Every site, without its tokens: id, profile, domain and whether it is rotating. */
export async function listSites(db) {
  return db.query(
    'SELECT id, profile_id, domain, previous_token_sha256 IS NOT NULL AS rotating FROM sites ORDER BY id',
  );
}

/** The public address of a site's article: the site's domain and the slug. */
export async function articleUrl(db, siteId, slug) {
  const [site] = await db.query('SELECT domain FROM sites WHERE id = $1', [siteId]);
  return site && `https://${site.domain}/${encodeURIComponent(slug)}`;
}

async function siteById(db, id) {
  const [site] = await db.query('SELECT id, previous_token_sha256 FROM sites WHERE id = $1', [id]);
  if (!site) throw new Error(`No site "${id}". The sites are listed by: node admin.mjs list`);
  return site;
}

// One token, one site: a token shared by two sites would let either sign for the other.
async function assertUnused(db, token) {
  const hash = sha256(token);
  const [owner] = await db.query('SELECT id FROM sites WHERE token_sha256 = $1 OR previous_token_sha256 = $1', [hash]);
  if (owner) throw new Error(`That token already belongs to site "${owner.id}": each site needs its own token.`);
}
