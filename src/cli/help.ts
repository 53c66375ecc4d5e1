import { PROFILE_HELP } from './profile-flags.js';

const TOKEN_NOTE = `The token comes from the WEBHOOK_TOKEN environment variable, or the variable that
--token-env NAME names; never from the command line, where the process list and shell
history would keep it. It is never printed.`;

export const TOP_HELP = `webhook-cms-receiver: send, sign, probe, diagnose, inspect and replay Webhook CMS deliveries, walk a token rotation, and read the delivery ledger

Usage:
  webhook-cms-receiver send --url URL --event EVENT [options]   send a delivery like the service does
  webhook-cms-receiver sign (--file BODY | --event EVENT) [options]   print signed headers and a curl command
  webhook-cms-receiver probe URL [--writes]   check a running endpoint against the contract
  webhook-cms-receiver diagnose (--capture FILE | --headers FILE --body FILE)   explain why a request is refused
  webhook-cms-receiver inspect [--file FILE] [--target URL]   a local page of the deliveries createInspector recorded
  webhook-cms-receiver replay --engine bullmq|pg-boss --queue NAME [--all]   list and re-run a queue's dead letters
  webhook-cms-receiver rotation [URL]   the zero-loss token rotation steps, and an endpoint's state
  webhook-cms-receiver ledger list|summary|resend|recover   read the delivery ledger, recover refusals
  webhook-cms-receiver --version
  webhook-cms-receiver <command> --help

--json on any command prints machine-readable output instead, one JSON document per line.

${TOKEN_NOTE}

Exit codes: 0 delivered, accepted or every probe row passed; 1 refused, gave up or a probe row
failed; 2 usage error.
`;

export const SEND_HELP = `Usage: webhook-cms-receiver send --url URL --event EVENT [options]

Sends a delivery the way the service does: a fresh timestamp and signature on every
attempt under one delivery id, a 10 s timeout, retries 2, 5 and 10 s after a failure,
none after 401 or 403. Prints each attempt as it happens.

Options:
  --url URL            the endpoint, e.g. http://127.0.0.1:3000/webhook
  --token-env NAME     the environment variable holding the token (default: WEBHOOK_TOKEN)
  --event EVENT        article.sync, article.trash or test
  --file FILE          a JSON file: a whole envelope (sent byte for byte), or an
                       article object merged into the sample envelope for --event
  --delivery-id ID     X-Service-Delivery-Id (default: a random UUID)
  --repeat N           send the same delivery N times, one after another, to watch dedup
  --tamper             change one byte of the body after signing (expect 403)
  --stale SECONDS      back-date the timestamp (expect 403 from 300 s on)
  --wrong-token        sign and authenticate with another token (expect 401)
${PROFILE_HELP}
  --no-retry           one attempt only
  --json               one JSON line per delivery: its summary and every attempt
  -h, --help           this help

${TOKEN_NOTE}

Exit codes: 0 delivered, 1 refused or gave up, 2 usage error.
`;

export const SIGN_HELP = `Usage: webhook-cms-receiver sign (--file BODY | --event EVENT) [options]

Prints the headers the service would send with this body, and a curl command that
sends it. The signature holds for 300 s after the timestamp.

Options:
  --token-env NAME     the environment variable holding the token (default: WEBHOOK_TOKEN)
  --file FILE          the exact body to sign (its raw bytes)
  --event EVENT        sign a sample envelope instead: article.sync, article.trash or test
  --timestamp SECONDS  X-Service-Timestamp (default: now)
  --delivery-id ID     X-Service-Delivery-Id (default: a random UUID)
  --url URL            the URL for the curl command (default: http://127.0.0.1:3000/webhook)
  --json               one JSON line: the headers (token masked), the body and the curl
                       command; diagnose --capture reads it
  -h, --help           this help

${TOKEN_NOTE} The curl command reads it from the same variable.
`;

export const PROBE_HELP = `Usage: webhook-cms-receiver probe URL [options]

Checks a running endpoint against the contract and prints one row per check: pass, warn
(differs from the contract in a way the service does not notice) or FAIL.
By default it sends only test events, so nothing changes: the test event is accepted (200
{"ok": true}), its redelivery still answers 200, a wrong token gets 401, a bad signature,
a stale, a future and a malformed timestamp get 403, GET gets 405 with Allow: POST, and
every answer comes within 10 s. Usable in CI: exit 1 when a row fails.

Options:
  --writes             also sync and trash a draft article whose slug starts
                       webhook-cms-probe-, redeliver it (must answer "duplicate": true)
                       and send 5 concurrent copies of one delivery id (one may run)
${PROFILE_HELP}
  --timeout-ms MS      how long to wait for each answer (default: 10000, the service's limit)
  --token-env NAME     the environment variable holding the token (default: WEBHOOK_TOKEN)
  --json               one JSON document: { ok, url, rows: [{ name, result, reason }] }
  -h, --help           this help

${TOKEN_NOTE}

Exit codes: 0 no row failed, 1 a row failed, 2 usage error.
`;

export const DIAGNOSE_HELP = `Usage: webhook-cms-receiver diagnose (--capture FILE | --headers FILE --body FILE) [options]

Explains why a captured request is refused: runs each check of the contract and names the
likely cause, such as a body re-serialized by a JSON parser, a BOM, base64 or changed line
endings, a token from another configuration, or a clock that is off (in seconds).

Options:
  --capture FILE       a JSON line with "headers" and "body" (or "bodyBase64"), as the
                       inspector or sign --json write it; - reads standard input
  --line N             which line of --capture (default: the last)
  --headers FILE       the request's headers: "Name: value" lines (curl -v, devtools) or JSON
  --body FILE          the raw body exactly as received
  --now WHEN           judge as of this time: Unix seconds or an ISO 8601 date (default: the
                       capture's receivedAt, else now)
  --token-env NAME     the environment variable holding the token (default: WEBHOOK_TOKEN)
  --json               one JSON document: { ok, verdict, checks, cause }
  -h, --help           this help

${TOKEN_NOTE} Neither is an HMAC made with it.

Exit codes: 0 the request would be accepted, 1 it is refused, 2 usage error.
`;

export const INSPECT_HELP = `Usage: webhook-cms-receiver inspect [--file FILE] [--target URL] [options]

Serves a live page of the deliveries your receiver recorded, on 127.0.0.1, until Ctrl-C:
time, headers (Authorization redacted), body, verdict with its reason, the diagnosis of a
refusal, and buttons to replay a delivery re-signed or send a new one to --target.

Recording is yours to switch on, in development only: give the receiver the inspector,
  createReceiver({ token, inspect: createInspector({ token }) })
(createInspector from webhook-cms-receiver/testing). It writes
.webhook-inspector/deliveries.jsonl under the server's working directory; run inspect from
the same directory, or point --file at it.

Options:
  --file FILE          the records (default: .webhook-inspector/deliveries.jsonl here)
  --target URL         where replays and new deliveries go, e.g. http://127.0.0.1:3000/webhook;
                       needs the token too. A delivery refused for its token is never replayed.
  --host HOST          the address to serve on (default: 127.0.0.1)
  --port PORT          the port (default: a free one)
  --allow-remote       allow a --host other than loopback: the page shows article bodies
  --token-env NAME     the environment variable holding the token (default: WEBHOOK_TOKEN)
  --json               print the page's address as one JSON line
  -h, --help           this help

${TOKEN_NOTE}

Exit codes: 0 stopped with Ctrl-C, 2 usage error.
`;
