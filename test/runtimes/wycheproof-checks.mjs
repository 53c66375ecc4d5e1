// Wycheproof's HMAC-SHA256 vectors through both providers of the package, on whatever runtime
// loads this module (Node, Bun, Deno, workerd). Web APIs only: the full tags the truncated
// vectors are checked against come from this runtime's own Web Crypto.
import { nodeCryptoProvider, webCryptoProvider } from 'webhook-cms-receiver';
import file from '../fixtures/wycheproof/hmac_sha256_test.json' with { type: 'json' };

/**
 * Every vector of the file with its group's key and tag sizes (bits), its hex decoded.
 *
 * @example
 * ```js
 * for (const vector of wycheproofVectors()) await checkWycheproofVector(webCryptoProvider(), vector);
 * ```
 */
export function wycheproofVectors() {
  return file.testGroups.flatMap(({ keySize, tagSize, tests }) =>
    tests.map((test) => ({
      ...test,
      keySize,
      tagSize,
      key: fromHex(test.key),
      msg: fromHex(test.msg),
      tag: fromHex(test.tag),
    })),
  );
}

/** The providers that load on this runtime: node:crypto is missing from workerd without nodejs_compat. */
export function providersHere() {
  const providers = [webCryptoProvider()];
  try {
    providers.push(nodeCryptoProvider());
  } catch {
    // No node:crypto here; runVectorChecks' crypto-path check already holds the core to that.
  }
  return providers;
}

/**
 * Throws unless `provider` answers `vector` as Wycheproof says. The receiver compares full
 * 32-byte tags, so a 256-bit vector is answered by its verdict, and a truncated (128-bit) tag
 * is refused whatever its verdict; a valid truncated vector must still be the start of the
 * full tag, which the provider then accepts. The whole message is the body, after an empty
 * prefix; where the provider streams, the streamed HMAC must agree.
 */
export async function checkWycheproofVector(provider, vector) {
  const { key, msg, tag, tagSize, result } = vector;
  if (result !== 'valid' && result !== 'invalid') throw new Error(`unknown result ${result}`);
  const verifier = provider.hmacSha256(key);
  if (tagSize === 256) {
    const valid = result === 'valid';
    expectEqual('verify', await verifier.verify('', msg, tag), valid);
    if (verifier.stream) expectEqual('stream', streamed(verifier, msg, tag), valid);
    return;
  }
  expectEqual('verify of the truncated tag', await verifier.verify('', msg, tag), false);
  if (verifier.stream) expectEqual('stream of the truncated tag', streamed(verifier, msg, tag), false);
  if (result === 'invalid') return;
  const full = await fullTag(key, msg);
  expectEqual('truncated tag is the start of the full tag', toHex(full.subarray(0, tag.length)), toHex(tag));
  expectEqual('verify of the full tag', await verifier.verify('', msg, full), true);
  if (verifier.stream) expectEqual('stream of the full tag', streamed(verifier, msg, full), true);
}

/**
 * The checks as named attempts for runVectorChecks: one per provider, each naming its first
 * failing vectors.
 */
export const WYCHEPROOF_CHECKS = Object.fromEntries(
  ['webcrypto', 'node:crypto'].map((name) => [
    `wycheproof HMAC-SHA256 (${file.numberOfTests} vectors): ${name}`,
    async () => {
      const provider = providersHere().find((candidate) => candidate.name === name);
      if (!provider) return;
      const failures = [];
      for (const vector of wycheproofVectors()) {
        await checkWycheproofVector(provider, vector).catch((error) => {
          failures.push(`tcId ${vector.tcId} (${vector.comment}): ${error.message}`);
        });
      }
      if (failures.length > 0) throw new Error(`${failures.length} failed, first: ${failures.slice(0, 3).join('; ')}`);
    },
  ]),
);

function streamed(verifier, msg, tag) {
  const hmac = verifier.stream('');
  hmac.update(msg);
  return hmac.matches(tag);
}

async function fullTag(key, msg) {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, msg));
}

function expectEqual(what, actual, expected) {
  if (actual !== expected)
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

function fromHex(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function toHex(bytes) {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
