// The vector checks as a Worker module: run.mjs bundles it the way wrangler would and loads it
// into workerd without nodejs_compat, then reads the results from one GET.
import { runVectorChecks } from './vector-checks.mjs';

export default {
  async fetch() {
    return Response.json(await runVectorChecks());
  },
};
