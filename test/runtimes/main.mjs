// Entry for Node, Bun and Deno: one JSON line on stdout for run.mjs to read.
import { runVectorChecks } from './vector-checks.mjs';

console.log(JSON.stringify(await runVectorChecks()));
