/** `ledger --help`. */
export const LEDGER_HELP = `Usage: webhook-cms-receiver ledger list|summary|resend|recover [options]

Reads the delivery ledger a receiver writes (createReceiver({ ledger })): what arrived, what
was answered, what was refused, and recovers refused deliveries once the token is fixed.

  list      the newest rows, filtered (--since, --status, --event, --article, --tenant)
  summary   counts per hour: delivered, refused (401/403), rejected (other 4xx), failed (5xx)
  resend    the articles refused and not delivered since: re-send these from the dashboard
  recover   re-delivers each kept refusal (keepRefused: true) that the token in the
            environment signed, to --url, signed afresh with the same delivery id; a refusal
            leaves the ledger only once the endpoint answered 2xx

Options:
  --database-url URL   the ledger's database: postgres://… (postgresLedger, needs pg) or
                       redis://… (redisLedger, needs redis). Default: $LEDGER_URL, then
                       $DATABASE_URL
  --table NAME         Postgres: the ledger's table (default: webhook_ledger)
  --prefix PREFIX      Redis: the ledger's key prefix (default: webhook-cms:)
  --since WHEN         an ISO time (2026-11-28T09:00Z) or a duration back from now (90m, 24h, 7d)
  --until WHEN         the same, for the end (list and summary)
  --status STATUS      list: one HTTP status (401) or a class (2xx, 4xx, 5xx)
  --event NAME         list: one event (article.sync, article.trash, test)
  --article ID         list: one article's history
  --tenant ID          list, summary and resend: one site
  --limit N            list: at most N rows (default 50, at most 1000)
  --cursor ID          list: the next page, as the previous one printed it
  --url URL            recover: the endpoint to re-deliver to
  --token-env NAME     recover: the variable holding the token (default: WEBHOOK_TOKEN)
  --json               print JSON instead of text
  -h, --help           this help

Fields of refused rows are what the request claimed, unverified; every field is printed with
control characters escaped, so nothing in a row can drive the terminal. The token is never
printed. Exit 0 when done, 1 when the ledger could not be read or a recovery failed, 2 for a
usage error.
`;
