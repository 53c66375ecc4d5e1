// The signer room's helpers that the CLI shares but users do not get: `index.ts` is the public
// `/testing` entry and exports exactly its documented API, so these come through this file.
export { redirectReason } from './deliver-summary.js';
export { httpUrl } from './http-url.js';
export { readAnswer } from './read-answer.js';
export { eventNameOf } from './sign-delivery.js';
