// The probe room: checks a running endpoint against the contract, row by row. Its public names
// reach users through `webhook-cms-receiver/testing`; the CLI imports this file.
export { probeEndpoint, type ProbeOptions, type ProbeResult } from './probe.js';
export type { ProbeRow } from './context.js';
export type { ProbeFetch } from './exchange.js';
