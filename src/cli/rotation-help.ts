/** The zero-loss rotation, step by step, as `rotation` prints it (the README's runbook, short). */
export const ROTATION_STEPS: readonly string[] = [
  "Arm: set rotatingUntil about an hour ahead (the option, or your token source's field) and deploy. " +
    '`webhook-cms-receiver rotation URL` must say "armed".',
  'Regenerate the token in Profile Settings → CMS Integration and copy it. From now on deliveries ' +
    'carry the new token: they are answered 503 and kept, and the service retries them.',
  'Update the secret: the new token first, the old one second (env var: redeploy; secret manager: ' +
    'the receiver reads it within tokenCacheMs, or at once on the next delivery). Kept deliveries run.',
  'Check: `WEBHOOK_TOKEN=<new> webhook-cms-receiver rotation URL` must say "accepted", and the ' +
    '"signed with token #1" warn line must have stopped.',
  'Disarm: remove rotatingUntil and the old token, and deploy.',
];

export const ROTATION_HELP = `Usage: webhook-cms-receiver rotation [URL] [--token-env NAME] [--json]

Prints the steps of a token rotation that loses no delivery. Given the endpoint's URL, also
checks its state: whether the rotation window is armed (it sends a test event with a random
token no endpoint knows: 401 means not armed, 503 means armed; while armed that request is
kept and dropped when the window ends) and, when a token is in the environment, whether the
endpoint accepts it (a signed test event). Nothing that changes data is sent, and no token
is printed.

Options:
  --token-env NAME     the environment variable holding the token to check (default: WEBHOOK_TOKEN;
                       without one, only the window is checked)
  --json               one JSON document: { url, window, token, steps }

Exit codes: 0 checked (or steps printed), 1 the endpoint could not be checked, 2 usage error.
`;
