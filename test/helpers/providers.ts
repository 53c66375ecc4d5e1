import { nodeCryptoProvider, webCryptoProvider, type CryptoProvider } from 'webhook-cms-receiver';

/** Every crypto provider, so one suite proves both behave the same. */
export const providers: [string, CryptoProvider][] = [
  ['node:crypto', nodeCryptoProvider()],
  ['webcrypto', webCryptoProvider()],
];
