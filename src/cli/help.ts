const TOKEN_NOTE = `The token comes from --token or, better (it stays out of your shell history and
process list), the WEBHOOK_TOKEN environment variable. It is never printed.`;

export const TOP_HELP = `webhook-cms-receiver: fire signed Webhook CMS deliveries at your endpoint

Usage:
  webhook-cms-receiver send --url URL --event EVENT [options]   send a delivery like the service does
  webhook-cms-receiver sign (--file BODY | --event EVENT) [options]   print signed headers and a curl command
  webhook-cms-receiver <command> --help

${TOKEN_NOTE}

Exit codes: 0 delivered, 1 refused or gave up, 2 usage error.
`;

export const SEND_HELP = `Usage: webhook-cms-receiver send --url URL --event EVENT [options]

Sends a delivery the way the service does: a fresh timestamp and signature on every
attempt under one delivery id, a 10 s timeout, retries 2, 5 and 10 s after a failure,
none after 401 or 403. Prints each attempt as it happens.

Options:
  --url URL            the endpoint, e.g. http://127.0.0.1:3000/webhook
  --token TOKEN        the webhook token (default: $WEBHOOK_TOKEN)
  --event EVENT        article.sync, article.trash or test
  --file FILE          a JSON file: a whole envelope (sent byte for byte), or an
                       article object merged into the sample envelope for --event
  --delivery-id ID     X-Service-Delivery-Id (default: a random UUID)
  --repeat N           send the same delivery N times, one after another, to watch dedup
  --tamper             change one byte of the body after signing (expect 403)
  --stale SECONDS      back-date the timestamp (expect 403 from 300 s on)
  --wrong-token        sign and authenticate with another token (expect 401)
  --no-retry           one attempt only
  -h, --help           this help

${TOKEN_NOTE}

Exit codes: 0 delivered, 1 refused or gave up, 2 usage error.
`;

export const SIGN_HELP = `Usage: webhook-cms-receiver sign (--file BODY | --event EVENT) [options]

Prints the headers the service would send with this body, and a curl command that
sends it. The signature holds for 300 s after the timestamp.

Options:
  --token TOKEN        the webhook token (default: $WEBHOOK_TOKEN)
  --file FILE          the exact body to sign (its raw bytes)
  --event EVENT        sign a sample envelope instead: article.sync, article.trash or test
  --timestamp SECONDS  X-Service-Timestamp (default: now)
  --delivery-id ID     X-Service-Delivery-Id (default: a random UUID)
  --url URL            the URL for the curl command (default: http://127.0.0.1:3000/webhook)
  -h, --help           this help

${TOKEN_NOTE} The curl command reads it from $WEBHOOK_TOKEN.
`;
