// `npm run conformance -- --base-url URL --credentials FILE [...]`: runs the checks against any
// implementation and reports like a CI tool. Exit codes: 0 all passed, 1 a check failed, 2 usage or
// configuration error, 3 the target cannot be used (unreachable, a wrong base URL, no token).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UnreachableError } from './http.ts';
import { count, failureDetails, json, junit, progressLine, summaryTable } from './report.ts';
import { coverage, coverageTable, scopeOf } from './coverage.ts';
import type { Check } from './check.ts';
import { checksFor, Runner, select, selectorsOf, type CheckResult, type Target } from './runner.ts';
import { Spec, defaultSpecPath } from './spec.ts';
import { fuzzChecks } from './fuzz/checks.ts';
import { onInterrupt } from './interrupt.ts';
import { openSandboxes, SandboxUnavailable, type SandboxSession } from './sandbox-session.ts';
import { keepingNote, keepingProbe } from './keeping.ts';

export const usage = `usage: pgw-conformance --base-url URL [--auth-url URL] [--crm-auth-url URL]
       (--credentials FILE | --client-id ID --client-secret S --client-id-b ID --client-secret-b S)
       [--partner-client-id ID --partner-client-secret S] [--only G,..] [--skip G,..] [--strict-seed]
       [--junit FILE] [--json FILE] [--seed N] [--timeout MS] [--spec FILE] [--list] [--fail-fast] [--require-all]
       [--header 'Name: value' ...] [--fuzz N] [--sandbox | --no-sandbox] [--no-clock]
  --credentials FILE  the bundled server's credentials file (URLs and the keys of merchants A and B, partner)
  --only / --skip     check ids, id stems (hostile/money), id prefixes (hostile, negative, amounts, contract,
                      fuzz: the groups of the summary and the JUnit suites), declared groups (auth, errors,
                      resources, pagination, tenancy, idempotency, transitions, fuzz), spec tags
                      (Customers, ...) or operationIds (createCustomer), comma-separated; --list shows
                      what they select; with --only the coverage table lists what the selection could call;
                      --skip auth/token_throttling sends no wrong client secrets (no 429 is provoked)
  --strict-seed       only what the interface document defines; skips designed behaviour
  --fail-fast         stop at the first failed check (the rest are reported as skipped)
  --require-all       a selected check that cannot run (skipped: no partner key, no CRM user, a designed
                      operation the target lacks) fails the run (exit 1), for CI that must run everything
  --header H          a header sent with every request, token requests included (repeatable)
  --fuzz N            after the checks, N requests per operation generated from its schemas (fast-check),
                      valid and invalid; a failure shows the shrunk, minimal request. Seeded by --seed (random
                      when not given, and printed): --seed S --fuzz N --only fuzz/<operationId> replays one
  --sandbox           run inside two sandbox merchants the run creates as the partner and deletes at the end
                      (also after a failure or Ctrl-C); the merchants given are never touched. The default
                      whenever partner credentials are given and the target offers sandboxes; --sandbox makes
                      it required (exit 3 when no sandbox can be made)
  --no-sandbox        clean-up mode even when sandboxes could be made: the checks run on the merchants given,
                      and the run deletes every record it created and says what it could not undo
  --no-clock          skip the checks that move a business clock (a clock only moves forward)
  --timeout MS        the time-out of each request, the first probe and the token requests included (10000)
A failed check shows a curl line that pastes into bash and sends the same request; the run's real secrets and
tokens are variables (the lines before it set them), a deliberately bad credential is shown as itself.
exit codes: 0 all passed, 1 a check failed, 2 usage or configuration error (an unknown --only/--skip
selector is named, with the nearest known one), 3 the target cannot be used: unreachable (the cause is said:
connection refused, DNS, time-out, TLS), a base URL at which none of the spec's routes answers as the API
(said once, before any check, with the URL tried), or no token (what the token service answered is said,
e.g. 401 invalid_client). --junit and --json are written whatever the exit code, with the error when the
run stopped on one.`;

class UsageError extends Error {}

interface CredentialsFile {
  baseUrl?: string; authUrl?: string; crmAuthUrl?: string;
  partner?: { clientId: string; clientSecret: string };
  merchants?: { clientId: string; clientSecret: string }[];
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'base-url': { type: 'string' }, 'auth-url': { type: 'string' }, 'crm-auth-url': { type: 'string' },
      credentials: { type: 'string' },
      'client-id': { type: 'string' }, 'client-secret': { type: 'string' },
      'client-id-b': { type: 'string' }, 'client-secret-b': { type: 'string' },
      'partner-client-id': { type: 'string' }, 'partner-client-secret': { type: 'string' },
      only: { type: 'string', multiple: true }, skip: { type: 'string', multiple: true },
      'strict-seed': { type: 'boolean', default: false },
      junit: { type: 'string' }, json: { type: 'string' },
      seed: { type: 'string' }, fuzz: { type: 'string' }, timeout: { type: 'string', default: '10000' },
      spec: { type: 'string' }, list: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
      'fail-fast': { type: 'boolean', default: false }, 'require-all': { type: 'boolean', default: false }, header: { type: 'string', multiple: true },
      sandbox: { type: 'boolean', default: false }, 'no-sandbox': { type: 'boolean', default: false }, 'no-clock': { type: 'boolean', default: false },
    },
    strict: true,
  });
  return values;
}

function target(values: ReturnType<typeof parse>): Target {
  let file: CredentialsFile = {};
  if (values.credentials) {
    try {
      file = JSON.parse(readFileSync(values.credentials, 'utf8')) as CredentialsFile;
    } catch (error) {
      throw new UsageError(`cannot read --credentials ${values.credentials}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const baseUrl = (values['base-url'] ?? file.baseUrl)?.replace(/\/$/, '');
  if (!baseUrl) throw new UsageError('--base-url (or a credentials file with baseUrl) is required');
  const pair = (id: string | undefined, secret: string | undefined, fallback: { clientId: string; clientSecret: string } | undefined, who: string) => {
    if (id !== undefined || secret !== undefined) {
      if (!id || !secret) throw new UsageError(`${who}: give both the client id and the client secret`);
      return { clientId: id, clientSecret: secret };
    }
    return fallback;
  };
  const a = pair(values['client-id'], values['client-secret'], file.merchants?.[0], 'merchant A');
  const b = pair(values['client-id-b'], values['client-secret-b'], file.merchants?.[1], 'merchant B');
  const partner = pair(values['partner-client-id'], values['partner-client-secret'], file.partner, 'partner');
  if (!a || !b) throw new UsageError('the credentials of two merchants (A and B) are required: --client-id/--client-secret and --client-id-b/--client-secret-b, or --credentials');
  return {
    baseUrl,
    authUrl: (values['auth-url'] ?? file.authUrl ?? baseUrl).replace(/\/$/, ''),
    crmAuthUrl: values['crm-auth-url'] ?? file.crmAuthUrl,
    credentials: { A: a, B: b, ...(partner ? { partner } : {}) },
    headers: headersOf(values.header ?? []),
  };
}

/** The fuzz phase's settings: N runs per operation, the seed given or a random one (printed, so it replays). */
const fuzzSeeds = new WeakMap<object, number>();
function fuzzOf(values: ReturnType<typeof parse>): { runs: number; seed: number } | undefined {
  const runs = Number(values.fuzz ?? '0');
  if (!(runs > 0)) return undefined;
  let seed = values.seed === undefined ? fuzzSeeds.get(values) : Number(values.seed);
  if (seed === undefined) {
    seed = Math.floor(Math.random() * 2 ** 31);
    fuzzSeeds.set(values, seed);
  }
  return { runs, seed };
}

/** The checks of a spec, the fuzz phase's last when --fuzz asks for it. */
function withFuzz(spec: Spec, values: ReturnType<typeof parse>): Check[] {
  const fuzz = fuzzOf(values);
  return [...checksFor(spec), ...(fuzz ? fuzzChecks(spec, fuzz) : [])];
}

/** `--header 'Name: value'` options as a header map; a malformed one is a usage error. */
function headersOf(options: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const option of options) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(option);
    if (!match?.[1]) throw new UsageError(`--header takes 'Name: value', not ${JSON.stringify(option)}`);
    headers[match[1].toLowerCase()] = match[2] ?? '';
  }
  return headers;
}

const list = (values: string[] | undefined): string[] => (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

/** The report paths, read from the raw arguments so a run that fails before parsing still writes them. */
function reportPaths(argv: readonly string[]): { junit?: string; json?: string } {
  const found: { junit?: string; json?: string } = {};
  argv.forEach((arg, i) => {
    for (const key of ['junit', 'json'] as const) {
      if (arg === `--${key}` && argv[i + 1] !== undefined) found[key] = argv[i + 1];
      else if (arg.startsWith(`--${key}=`)) found[key] = arg.slice(key.length + 3);
    }
  });
  return found;
}

/** Levenshtein distance, for "did you mean" on a mistyped selector. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

/** Selectors of --only / --skip that name no check, id stem, group, tag or operation: a usage error. */
function unknownSelectors(checks: readonly Check[], selectors: readonly string[]): string | undefined {
  // Matched without regard to case, suggested in the check's own spelling (createCustomer, not createcustomer).
  const known = new Map<string, string>();
  for (const k of checks.flatMap(selectorsOf)) if (k !== '' && !known.has(k.toLowerCase())) known.set(k.toLowerCase(), k);
  const unknown = selectors.filter((s) => !known.has(s.toLowerCase()));
  if (unknown.length === 0) return undefined;
  const suggestions = unknown.map((u) => {
    const near = [...known].map(([lower, k]) => [k, distance(u.toLowerCase(), lower)] as const).sort((x, y) => x[1] - y[1])[0];
    return near && near[1] <= Math.max(2, Math.floor(u.length / 4)) ? `${u} (did you mean ${near[0]}?)` : u;
  });
  const groups = [...new Set(checks.map((c) => c.group))].join(', ');
  const prefixes = [...new Set(checks.map((c) => c.id.split('/')[0] ?? c.id))].join(', ');
  return `unknown --only/--skip selector${unknown.length > 1 ? 's' : ''}: ${suggestions.join(', ')}. Selectors are check ids or id stems (--list), groups (${groups}), id prefixes, the groups of the summary (${prefixes}), spec tags or operationIds`;
}

export async function main(argv: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
  const reports = reportPaths(argv);
  const started = performance.now();
  let baseUrl = '';
  /** Writes both reports whatever the outcome: a CI step that publishes them always finds them. */
  const finish = (code: number, results: readonly CheckResult[], meta: Record<string, unknown>, error?: string): number => {
    const name = `conformance ${baseUrl}`;
    const durationSeconds = (performance.now() - started) / 1000;
    if (reports.junit) writeFileSync(reports.junit, junit(results, name, error));
    if (reports.json) writeFileSync(reports.json, json(results, { target: baseUrl, exitCode: code, durationSeconds, ...meta, ...(error === undefined ? {} : { error }) }));
    return code;
  };
  let values: ReturnType<typeof parse>;
  let tgt: Target;
  let spec: Spec;
  try {
    values = parse(argv);
    if (values.help) {
      out(usage);
      return 0;
    }
    spec = Spec.load(values.spec ?? defaultSpecPath);
    for (const n of [values.seed ?? '1', values.timeout, values.fuzz ?? '0']) if (!/^\d+$/.test(n)) throw new UsageError(`--seed, --timeout and --fuzz take whole numbers, not ${n}`);
    if (values.list) {
      // What a run with the same --only / --skip / --strict-seed would run, and nothing else.
      const checks = withFuzz(spec, values);
      const unknown = unknownSelectors(checks, [...list(values.only), ...list(values.skip)]);
      if (unknown !== undefined) throw new UsageError(unknown);
      const { run } = select(checks, { only: list(values.only), skip: list(values.skip), strictSeed: values['strict-seed'] });
      for (const c of run) out(`${c.id}${c.designed ? ' (designed)' : ''}: ${c.title}`);
      out(count(run.length, 'check'));
      return 0;
    }
    tgt = target(values);
    baseUrl = tgt.baseUrl;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    err(`${message}\n\n${usage}`);
    return finish(2, [], {}, message);
  }
  const allChecks = withFuzz(spec, values);
  const selectors = [...list(values.only), ...list(values.skip)];
  const unknown = unknownSelectors(allChecks, selectors);
  if (unknown !== undefined) {
    err(unknown);
    return finish(2, [], {}, unknown);
  }
  const { run, skipped } = select(allChecks, { only: list(values.only), skip: list(values.skip), strictSeed: values['strict-seed'] });
  const seed = Number(values.seed ?? '1');
  if (values.sandbox && values['no-sandbox']) {
    err(`--sandbox and --no-sandbox exclude each other\n\n${usage}`);
    return finish(2, [], {}, '--sandbox and --no-sandbox exclude each other');
  }
  // Sandbox mode when it can be had (or is asked for); clean-up mode otherwise.
  let session: SandboxSession | undefined;
  let modeNote: string;
  if (values['no-sandbox']) modeNote = 'clean-up (--no-sandbox)';
  else {
    try {
      session = await openSandboxes(spec, tgt, Number(values.timeout), `conformance ${new Date().toISOString()}`);
      modeNote = `sandbox (merchants ${session.merchantIds.join(' and ')} created as the partner, deleted at the end; the merchants given are not touched)`;
    } catch (error) {
      if (!(error instanceof SandboxUnavailable)) throw error;
      if (values.sandbox) {
        err(`--sandbox: no sandbox could be made: ${error.message}`);
        return finish(3, [], { mode: 'sandbox' }, `no sandbox could be made: ${error.message}`);
      }
      modeNote = `clean-up (no sandbox: ${error.message})`;
    }
  }
  const mode = session ? 'sandbox' : 'clean-up';
  const runTarget = session?.target ?? tgt;
  const runner = new Runner(spec, runTarget, seed, Number(values.timeout), { cleanup: session ? 'partner' : 'all', noClock: values['no-clock'] });
  let cleaned = false;
  /** Deletes the sandboxes, or what the run created; says what is left. Runs once (the end, or a signal). */
  const cleanUp = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    if (session) {
      // A sandbox a check made as the partner (the walk's own), should the run have stopped before the check deleted it.
      await runner.cleanUp();
      const left = await session.close();
      out(left.length === 0 ? `sandbox: deleted ${session.merchantIds.join(' and ')}` : `sandbox: could not delete ${left.join(', ')} (they expire on their own within the hour)`);
      return;
    }
    const outcome = await runner.cleanUp();
    if (!outcome) return;
    const deleted = Object.values(outcome.deleted).reduce((sum, n) => sum + n, 0);
    out(`clean-up: deleted ${String(deleted)} record${deleted === 1 ? '' : 's'} the run created${outcome.notUndone.length === 0 ? '; nothing left to undo' : '; not undone:'}`);
    for (const line of outcome.notUndone) out(`  - ${line}`);
  };
  const stopListening = onInterrupt(cleanUp, err);
  const results: CheckResult[] = skipped.map(([c, why]) => ({ id: c.id, group: c.group, title: c.title, status: 'skipped', durationMs: 0, message: why, problems: [], requests: 0, operations: {} }));
  const fuzz = fuzzOf(values);
  const meta = { seed, strictSeed: values['strict-seed'], mode, ...(values['no-clock'] ? { noClock: true } : {}), ...(fuzz ? { fuzz } : {}) };
  out(`conformance: ${tgt.baseUrl} (token service ${tgt.authUrl}), ${count(run.length, 'check')}, seed ${String(seed)}${values['strict-seed'] ? ', strict seed' : ''}`);
  out(`mode: ${modeNote}${values['no-clock'] ? '; --no-clock: checks that move a clock are skipped' : ''}`);
  if (fuzz) out(`fuzz: ${count(fuzz.runs, 'request')} per operation, seed ${String(fuzz.seed)} (--seed ${String(fuzz.seed)} replays)`);
  for (const result of results) out(progressLine(result));
  let keepsNothing: string | undefined;
  try {
    await runner.prepare();
    const probe = await runner.runCheck(keepingProbe(session?.merchantIds ?? []));
    if (probe.status === 'failed') keepsNothing = probe.message;
    for (const [index, check] of run.entries()) {
      const result = await runner.runCheck(check);
      results.push(result);
      out(progressLine(result));
      if (values['fail-fast'] && result.status === 'failed') {
        for (const rest of run.slice(index + 1)) {
          const skippedResult: CheckResult = { id: rest.id, group: rest.group, title: rest.title, status: 'skipped', durationMs: 0, message: 'not run (--fail-fast after a failure)', problems: [], requests: 0, operations: {} };
          results.push(skippedResult);
          out(progressLine(skippedResult));
        }
        out(`stopping: --fail-fast after ${result.id} failed`);
        break;
      }
    }
  } catch (error) {
    if (error instanceof UnreachableError) {
      err(error.message);
      return finish(3, results, meta, error.message);
    }
    // A fault of the suite itself: said with its stack, and the reports still written (exit 2).
    err(error instanceof Error ? error.stack ?? error.message : String(error));
    return finish(2, results, meta, `the suite failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    // After a failure too: the sandboxes go, or what the run created.
    await cleanUp().catch((error: unknown) => { err(`clean-up failed: ${error instanceof Error ? error.message : String(error)}`); });
    stopListening();
  }
  results.sort((x, y) => allChecks.findIndex((c) => c.id === x.id) - allChecks.findIndex((c) => c.id === y.id));
  const failed = results.filter((r) => r.status === 'failed');
  // What could not run is said first, with why (a check that silently stops running hides a defect); the
  // checks deselected by --only, --skip or --strict-seed are the caller's choice and are not listed.
  const deselected = new Set(skipped.map(([c]) => c.id));
  const notRun = results.filter((r) => r.status === 'skipped' && !deselected.has(r.id));
  if (notRun.length > 0) {
    out(`\n${String(notRun.length)} selected check${notRun.length === 1 ? '' : 's'} could not run${values['require-all'] ? ' (--require-all: each fails the run)' : ' (--require-all makes that a failure)'}:`);
    for (const r of notRun) out(`  SKIP ${r.id}: ${r.message ?? 'no reason given'}`);
  }
  if (keepsNothing !== undefined) out(`\n${keepingNote(keepsNothing)}`);
  if (failed.length > 0) out(`\n${failed.map(failureDetails).join('\n\n')}`);
  // With --only, the table covers what the selection could call, not every operation of the spec.
  const covered = coverage(spec, results, list(values.only).length > 0 ? scopeOf(spec, run) : undefined);
  out(`\n${coverageTable(covered)}`);
  out(`\n${summaryTable(results)}`);
  const fuzzed = results.filter((r) => r.group === 'fuzz' && r.status !== 'skipped');
  if (fuzz && fuzzed.length > 0) {
    const seconds = fuzzed.reduce((sum, r) => sum + r.durationMs, 0) / 1000;
    out(`fuzz: ${count(fuzzed.reduce((sum, r) => sum + r.requests, 0), 'request')} to ${count(fuzzed.length, 'operation')} in ${seconds.toFixed(1)}s, seed ${String(fuzz.seed)}, ${String(fuzzed.filter((r) => r.status === 'failed').length)} failed`);
  }
  const elapsed = (performance.now() - started) / 1000;
  out(`${String(results.filter((r) => r.status === 'passed').length)} passed, ${String(failed.length)} failed, ${String(results.filter((r) => r.status === 'skipped').length)} skipped in ${elapsed.toFixed(1)}s`);
  return finish(failed.length > 0 || (values['require-all'] && notRun.length > 0) ? 1 : 0, results, { ...meta, coverage: covered, notRun: notRun.map((r) => r.id), ...(keepsNothing === undefined ? {} : { keepsNothing }) });
}
