import type { CryptoProvider, HmacVerifier } from 'webhook-cms-receiver';

/** One Wycheproof MAC test with its group's sizes (bits), hex decoded. */
export interface WycheproofVector {
  tcId: number;
  comment: string;
  flags: string[];
  keySize: number;
  tagSize: number;
  key: Uint8Array;
  msg: Uint8Array;
  tag: Uint8Array;
  result: 'valid' | 'invalid';
}

/** A shipped provider, which also takes raw key bytes. */
export type RawKeyProvider = CryptoProvider & { hmacSha256(secret: string | Uint8Array): HmacVerifier };

export declare function wycheproofVectors(): WycheproofVector[];
export declare function providersHere(): RawKeyProvider[];
export declare function checkWycheproofVector(provider: RawKeyProvider, vector: WycheproofVector): Promise<void>;
export declare const WYCHEPROOF_CHECKS: Record<string, () => Promise<void>>;
