// The help text of every command (`pgw --help`, `pgw <command> --help`).
export const GLOBAL_OPTIONS = `Configuration (every command):
  --credentials FILE    a JSON file: the bundled server's credentials file (data/sandbox-credentials.json;
                        its first merchant unless --merchant says) or {"baseUrl", "clientId", "clientSecret"}
                        (default: $PGW_CONFIG, else ~/.config/pgw/config.json)
  --merchant N|ID       which merchant of the file's "merchants" (an index from 0, or a merchantId)
  --base-url URL        the API base URL (overrides the file)
  --auth-url URL        the token service's base URL (default: the file's authUrl, else the base URL)
  --client-id ID        the API key's client id (overrides the file)
  --client-secret S     its client secret (overrides the file)`;

export const EXIT_CODES = `Exit codes:
  0  done (listen: stopped by Ctrl-C)
  1  the API answered with an error (the message says what it said)
  2  usage error: an unknown command or option, a bad value (duration, event type, URL, id)
  3  configuration or credentials: no or unreadable configuration file, a missing value, credentials refused
  4  the server cannot be reached (connection refused, DNS, time-out)`;

export const help: Record<string, string> = {
  main: `pgw: the payment gateway's command line, on the public API and the sandbox controls.

Usage: pgw <command> [options]

Commands:
  listen --forward-to URL     forward the merchant's events (--partner: all the partner's) as they happen to a local URL, signed
  trigger <event-type>        make an event happen for real (trigger --list: which ones, and why not the others)
  events resend <id>          resend a webhook delivery now (a delivery id, or an event id)
  clock                       show the merchant's sandbox clock
  clock advance <duration>    move the sandbox clock forward (30s, 15m, 2h, 1d, 1w, 1d12h) and run what fell due
  logs                        recent webhook deliveries, newest first
  sandbox create|list|delete  disposable sandbox merchants (a partner's key): make one for a run, list, delete
  reset                       wipe the merchant's sandbox records and put its clock back to the present
  help [command]              this text, or a command's

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  listen: `Usage: pgw listen --forward-to URL [--events TYPES] [--after EVENT_ID] [--partner]

Follows the merchant's sandbox event stream (GET /sandbox/v1/events/stream, server-sent events, so it works
with a remote sandbox) and POSTs each event to URL with the body and Standard Webhooks headers a webhook
delivery has (webhook-id is the event id; webhook-timestamp; webhook-signature), signed with a local secret.
The secret (whsec_...) is made on the first run, printed once, and kept beside the configuration file
(pgw-listen-secret, mode 0600); later runs reuse it. One line per event: time, type, event id, the local
answer's status (or refused, timeout) and duration. A dropped stream is resumed after the last event
received, losing nothing. Ctrl-C closes the stream, waits for the forwards in flight and exits 0; nothing
was registered on the server.

Options:
  --forward-to URL    where to POST each event (http or https), e.g. http://127.0.0.1:8080/hooks
  --events TYPES      only these event types, comma-separated (default: every type)
  --after EVENT_ID    first send the events recorded after this one (default: from now on)
  --partner           with the partner's key (the credentials file's partner entry): the events of every
                      merchant of the partner, merged in order; a sandbox merchant it creates arrives with its
                      merchant.created (pgw trigger merchant.created makes one)

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  trigger: `Usage: pgw trigger <event-type> [--override STEP:FIELD=VALUE]... [--add STEP:FIELD=VALUE]... [--customer ID]
       pgw trigger --fixture FILE [<event-type>] [--override ...] [--add ...] [--customer ID] [--allow-destructive]
       pgw trigger --story NAME [<event-type>] [--override ...] [--add ...] [--customer ID]
       pgw trigger --list

Makes the event happen for real through the API and the sandbox controls (for example payment.ach.cleared:
an ACH debit, settled by the sandbox's simulate), printing the ids of what it created. Related events
happen too (the debit's payment.ach.scheduled, say). --list shows every event type it can trigger, with
what it does, and the ones it cannot, with the reason, then the stories: fixtures of this package beyond an
event type's first one (a trial ending, a prorated upgrade...), run by name with --story.

Each event type is a fixture, cli/fixtures/<event-type>.json: steps, each an operationId of the spec with
its path, query and body (or a sandbox clock advance), whose values may name earlier steps' answers
(\${sale.transactionId}) and arguments (\${args.customer}). The format: cli/README.md, "Trigger fixtures".

A fixture file is not trusted. It is refused (exit 2) before anything is sent when it is larger than 1 MiB
(checked before reading it) or nested more than 64 levels deep; when a path parameter would not be one segment
("", ".", "..", or text that percent-decodes to them: path and query values are always sent percent-encoded);
and, without --allow-destructive, when a step resets the sandbox, deletes a sandbox merchant, creates a sandbox
merchant or an API key, revokes an API key, or registers (or points) a webhook endpoint at a URL that is not on
loopback (127.0.0.0/8, ::1, localhost). --list marks the built-in fixtures with such steps (api_key.created,
api_key.deleted, merchant.created): they run without the flag, their event type being what the step makes.
Text from the server or the fixture is printed with control characters escaped (ESC as \\u001b).

Options:
  --fixture FILE                your own fixture (JSON, or YAML when FILE ends in .yaml or .yml); with an
                                event type, used in place of the built-in one
  --override STEP:FIELD=VALUE   change a field the step sends (FIELD: body path, or path.X / query.X), e.g.
                                --override sale:amount=12.5; a text field stays text; repeatable
  --add STEP:FIELD=VALUE        add a field the step does not send yet (VALUE is JSON if it parses); repeatable
  --customer ID                 passed to the fixture as \${args.customer}
  --allow-destructive           let your fixture run the steps above (reset, delete, API keys, webhooks off
                                this machine); read it first
  --list                        the event types, and why not the others

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  events: `Usage: pgw events resend <deliveryId|eventId> [--force]

Resends a webhook delivery now (POST /v2/webhooks/delivery-logs/{id}/retry): one that has not succeeded,
Failed or still being retried (its retry schedule is kept; if the resend succeeds, its retries stop). Given
an event id, resends the event once to each webhook that has not received it, among the 1,000 most recent
deliveries.

Options:
  --force             resend a delivery that succeeded too (to every webhook of the event)

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  clock: `Usage: pgw clock
       pgw clock advance <duration>

Shows the merchant's sandbox clock, or moves it forward and runs what fell due (ACH submission and
clearing, card settlement and expiry, invoices past due, webhook retries), printing what ran.
A duration is a number and a unit, s, m, h, d or w (30s, 15m, 2h, 1d, 1w), or several (1d12h); at most 365 days.

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  logs: `Usage: pgw logs [--limit N] [--status S] [--type EVENT_TYPE]

The merchant's recent webhook deliveries (to its registered endpoints), newest first: when, event type,
status, attempt, the receiver's HTTP status, the delivery id and the event id.

Options:
  --limit N           how many (1 to 100, default 20)
  --status S          only Pending, Succeeded or Failed
  --type EVENT_TYPE   only this event type

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  sandbox: `Usage: pgw sandbox create [--name NAME] [--expires DURATION] [--write FILE]
       pgw sandbox list
       pgw sandbox delete <merchantId>

Disposable sandbox merchants, with a partner's key (the "partner" of the bundled server's credentials file,
or --client-id/--client-secret of a partner key). create makes an isolated merchant (processors, settings,
an API key, its own clock at the present) and prints its ids and, once, its client secret; with --write it
writes them instead to FILE (a new file, mode 0600), which every command reads with --credentials FILE, as
it reads any merchant's: pgw --credentials FILE listen, trigger, clock, logs, reset. The sandbox expires
after --expires (default 7d, at most 30d) and the server deletes it then. A partner holds at most 20 at once.
list shows the partner's sandbox merchants; delete removes one and everything it held.

Options (create):
  --name NAME         the merchant's name (default: Sandbox merchant)
  --expires DURATION  how long it lives: 60s to 30d (e.g. 2h, 1d, 1w; default 7d)
  --write FILE        write the credentials to FILE instead of printing the secret

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
  reset: `Usage: pgw reset

Resets the merchant's sandbox (POST /sandbox/v1/reset): its customers, payment methods, transactions,
invoices, catalogue, webhook endpoints and deliveries, events, devices and Idempotency-Keys go, and its clock
returns to the present. Its API keys, users, processors and settings stay: the same credentials keep working.
Prints what was removed. Any merchant of a sandbox may reset itself; other merchants are not touched.

${GLOBAL_OPTIONS}

${EXIT_CODES}`,
};
