import { XSS_CORPUS } from '../runtimes/xss-corpus.mjs';

/** Real vectors, from the OWASP XSS filter evasion cheat sheet and mutation-XSS write-ups. */
export const VECTORS: string[] = XSS_CORPUS;
