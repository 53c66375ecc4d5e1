// The /publish checks as a Worker module: bundled as wrangler would (the hast peers included)
// and run in workerd without nodejs_compat, read from one GET.
import { runPublishChecks } from './publish-checks.mjs';

export default {
  async fetch() {
    return Response.json(await runPublishChecks());
  },
};
