// `npm run conformance -- --base-url URL --credentials FILE [...]`: runs the checks against any
// implementation and reports like a CI tool. Exit codes: 0 all passed, 1 a check failed, 2 usage or
// configuration error, 3 the target was unreachable or gave no token.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UnreachableError } from './http.ts';
import { failureDetails, json, junit, progressLine, summaryTable } from './report.ts';
import { coverage, coverageTable } from './coverage.ts';
import { checksFor, Runner, select, type CheckResult, type Target } from './runner.ts';
import { Spec, defaultSpecPath } from './spec.ts';

export const usage = `usage: pgw-conformance --base-url URL [--auth-url URL] [--crm-auth-url URL]
       (--credentials FILE | --client-id ID --client-secret S --client-id-b ID --client-secret-b S)
       [--partner-client-id ID --partner-client-secret S] [--only G,..] [--skip G,..] [--strict-seed]
       [--junit FILE] [--json FILE] [--seed N] [--timeout MS] [--spec FILE] [--list] [--fail-fast]
       [--header 'Name: value' ...]
  --credentials FILE  the bundled server's credentials file (URLs and the keys of merchants A and B, partner)
  --only / --skip     check ids, id stems, groups (auth, errors, resources, pagination, tenancy, idempotency,
                      transitions), spec tags (Customers, ...) or operationIds (createCustomer), comma-separated
  --strict-seed       only what the interface document defines; skips designed behaviour
  --fail-fast         stop at the first failed check (the rest are reported as skipped)
  --header H          a header sent with every request, token requests included (repeatable)
exit codes: 0 all passed, 1 a check failed, 2 usage or configuration error, 3 target unreachable or no token`;

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
      seed: { type: 'string', default: '1' }, timeout: { type: 'string', default: '10000' },
      spec: { type: 'string' }, list: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
      'fail-fast': { type: 'boolean', default: false }, header: { type: 'string', multiple: true },
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

export async function main(argv: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
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
    if (values.list) {
      for (const c of checksFor(spec)) out(`${c.id}${c.designed ? ' (designed)' : ''}: ${c.title}`);
      return 0;
    }
    tgt = target(values);
    for (const n of [values.seed, values.timeout]) if (!/^\d+$/.test(n)) throw new UsageError(`--seed and --timeout take whole numbers, not ${n}`);
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    return 2;
  }
  const allChecks = checksFor(spec);
  const { run, skipped } = select(allChecks, { only: list(values.only), skip: list(values.skip), strictSeed: values['strict-seed'] });
  if (run.length === 0 && skipped.length === 0) {
    err(`no check matches --only ${list(values.only).join(',')}\n\n${usage}`);
    return 2;
  }
  const runner = new Runner(spec, tgt, Number(values.seed), Number(values.timeout));
  const started = performance.now();
  const results: CheckResult[] = skipped.map(([c, why]) => ({ id: c.id, group: c.group, title: c.title, status: 'skipped', durationMs: 0, message: why, problems: [], requests: 0, operations: {} }));
  out(`conformance: ${tgt.baseUrl} (token service ${tgt.authUrl}), ${String(run.length)} checks, seed ${values.seed}${values['strict-seed'] ? ', strict seed' : ''}`);
  for (const result of results) out(progressLine(result));
  try {
    await runner.prepare();
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
      err(`the target is unreachable: ${error.message}`);
      return 3;
    }
    throw error;
  }
  results.sort((x, y) => allChecks.findIndex((c) => c.id === x.id) - allChecks.findIndex((c) => c.id === y.id));
  const failed = results.filter((r) => r.status === 'failed');
  if (failed.length > 0) out(`\n${failed.map(failureDetails).join('\n\n')}`);
  const covered = coverage(spec, results);
  out(`\n${coverageTable(covered)}`);
  out(`\n${summaryTable(results)}`);
  const elapsed = (performance.now() - started) / 1000;
  out(`${String(results.filter((r) => r.status === 'passed').length)} passed, ${String(failed.length)} failed, ${String(results.filter((r) => r.status === 'skipped').length)} skipped in ${elapsed.toFixed(1)}s`);
  if (values.junit) writeFileSync(values.junit, junit(results, `conformance ${tgt.baseUrl}`));
  if (values.json) writeFileSync(values.json, json(results, { target: tgt.baseUrl, seed: Number(values.seed), strictSeed: values['strict-seed'], durationSeconds: elapsed, coverage: covered }));
  return failed.length > 0 ? 1 : 0;
}
