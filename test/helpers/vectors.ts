import { readFileSync } from 'node:fs';

/** One signed delivery from the independent implementation, with the outcome it must get. */
export interface Vector {
  name: string;
  tokens: string[];
  now: number;
  headers: Record<string, string>;
  body: Uint8Array;
  expect: { status: number; event?: string; error?: string };
}

const file = JSON.parse(readFileSync(new URL('../fixtures/deliveries.json', import.meta.url), 'utf8')) as {
  vectors: (Omit<Vector, 'body'> & { body_base64: string })[];
};

export const vectors: Vector[] = file.vectors.map(({ body_base64, ...vector }) => ({
  ...vector,
  body: new Uint8Array(Buffer.from(body_base64, 'base64')),
}));
