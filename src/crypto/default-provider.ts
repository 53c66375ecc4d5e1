import { loadNodeCrypto, nodeCryptoProvider } from './node-crypto.js';
import type { CryptoProvider } from './provider.js';
import { webCryptoProvider } from './web-crypto.js';

/** node:crypto where the runtime has it (faster, synchronous), Web Crypto everywhere else. */
export function defaultCryptoProvider(): CryptoProvider {
  return loadNodeCrypto() ? nodeCryptoProvider() : webCryptoProvider();
}
