// Entry for Node, Bun and Deno: one JSON line on stdout for publish-matrix.mjs to read.
import { runPublishChecks } from './publish-checks.mjs';

console.log(JSON.stringify(await runPublishChecks()));
