// `pgw <command>`: parses the command line, runs the command, and exits with the documented code
// (errors.ts; `pgw --help`). Messages go to stderr, results and listen's lines to stdout.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { WebhookEventName } from '@pgw/client/webhooks';
import type { Session } from './api.ts';
import { commandFirst } from './argv.ts';
import { loadConfig, loadPartnerConfig, type GlobalOptions } from './config.ts';
import { parseDuration } from './duration.ts';
import { EXIT, exitCodeOf, UsageError } from './errors.ts';
import { eventTypes } from './event-types.ts';
import type { Edit, Fixture } from './fixtures.ts';
import { help } from './help.ts';

// A command's modules load when it runs (the generated client, the fixtures' schema and the 230 KB route table
// among them): `pgw --help` and a usage error need none of them, and each costs every invocation start-up time
// (~0.76 s of CPU for `pgw --help` with them all, ~0.42 s of it tsx's own).

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL: Options = {
  credentials: { type: 'string' }, merchant: { type: 'string' },
  'base-url': { type: 'string' }, 'auth-url': { type: 'string' },
  'client-id': { type: 'string' }, 'client-secret': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const COMMAND_OPTIONS: Record<string, Options> = {
  listen: { 'forward-to': { type: 'string' }, events: { type: 'string' }, after: { type: 'string' }, partner: { type: 'boolean' } },
  trigger: { list: { type: 'boolean' }, fixture: { type: 'string' }, story: { type: 'string' }, override: { type: 'string', multiple: true }, add: { type: 'string', multiple: true }, customer: { type: 'string' }, 'allow-destructive': { type: 'boolean' } },
  events: { force: { type: 'boolean' } }, clock: {},
  logs: { limit: { type: 'string' }, status: { type: 'string' }, type: { type: 'string' } },
  sandbox: { name: { type: 'string' }, expires: { type: 'string' }, write: { type: 'string' } },
  reset: {},
};

/** The server's bounds of a sandbox's expiry (the spec's): 60 s to 30 days. */
const SANDBOX_EXPIRY = { min: 60, max: 30 * 86_400, what: "a sandbox's expiry" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const out = (text: string): void => { process.stdout.write(`${text}\n`); };

/** The nearest known word, for "did you mean". */
function nearest(word: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const here = row[j] ?? 0;
        row[j] = Math.min(here + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = here;
      }
    }
    return row[b.length] ?? Infinity;
  };
  const best = [...known].sort((x, y) => distance(word, x) - distance(word, y))[0];
  return best !== undefined && distance(word, best) <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

const suggest = (word: string, known: readonly string[]): string => {
  const near = nearest(word, known);
  return near ? ` (did you mean ${near}?)` : '';
};

function parse(command: string, args: string[]) {
  try {
    return parseArgs({ args, options: { ...GLOBAL, ...COMMAND_OPTIONS[command] }, allowPositionals: true, strict: true });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(text)?.[1];
    const known = Object.keys({ ...GLOBAL, ...COMMAND_OPTIONS[command] }).map((k) => `--${k}`);
    const said = unknown === undefined ? (text.split('\n')[0] ?? text) : `unknown option ${unknown}${suggest(unknown, known)}`;
    throw new UsageError(`pgw ${command}: ${said}. See pgw ${command} --help`);
  }
}

const globalOf = (values: Record<string, unknown>): GlobalOptions => ({
  credentials: values.credentials as string | undefined, merchant: values.merchant as string | undefined,
  baseUrl: values['base-url'] as string | undefined, authUrl: values['auth-url'] as string | undefined,
  clientId: values['client-id'] as string | undefined, clientSecret: values['client-secret'] as string | undefined,
});

function expectPositionals(command: string, positionals: string[], count: number, what: string): void {
  if (positionals.length < count) throw new UsageError(`pgw ${command}: ${what} is missing. See pgw ${command} --help`);
  if (positionals.length > count) throw new UsageError(`pgw ${command}: unexpected argument "${positionals[count] ?? ''}". See pgw ${command} --help`);
}

async function run(given: string[]): Promise<number> {
  const argv = commandFirst(given, GLOBAL);
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const topic = command === 'help' ? rest[0] : undefined;
    if (topic !== undefined && help[topic] === undefined) throw new UsageError(`no command ${topic}${suggest(topic, Object.keys(COMMAND_OPTIONS))}. See pgw --help`);
    out(help[topic ?? 'main'] ?? '');
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (!(command in COMMAND_OPTIONS)) throw new UsageError(`unknown command "${command}"${suggest(command, Object.keys(COMMAND_OPTIONS))}. See pgw --help`);
  const { values, positionals } = parse(command, rest);
  if (values.help === true) {
    out(help[command] ?? '');
    return EXIT.ok;
  }
  // Usage is checked before the configuration: a wrong command line says so even without credentials.
  const connected = async (config: ReturnType<typeof loadConfig>): Promise<Session> => (await import('./api.ts')).connect(config);
  const session = (): Promise<Session> => connected(loadConfig(globalOf(values)));
  const partner = (): Promise<Session> => connected(loadPartnerConfig(globalOf(values)));
  // A fixture runs with the key it names: the merchant's, or the partner's (merchant.created makes a merchant).
  const sessionFor = (fixture: Fixture): Promise<Session> => (fixture.key === 'partner' ? partner() : session());
  switch (command) {
    case 'listen': {
      expectPositionals(command, positionals, 0, '');
      const forwardTo = values['forward-to'];
      if (typeof forwardTo !== 'string') throw new UsageError('pgw listen: --forward-to URL is required (e.g. --forward-to http://127.0.0.1:8080/hooks). See pgw listen --help');
      const events = values.events as string | undefined;
      if (events !== undefined) {
        const unknown = events.split(',').map((t) => t.trim()).filter((t) => !(eventTypes() as readonly string[]).includes(t));
        if (unknown.length > 0) throw new UsageError(`--events: unknown event type ${unknown.map((t) => `"${t}"${suggest(t, eventTypes())}`).join(', ')}. pgw trigger --list shows the types`);
      }
      const after = values.after as string | undefined;
      if (after !== undefined && !UUID.test(after)) throw new UsageError(`--after "${after}" is not an event id (a UUID)`);
      const { forwardUrl, listen } = await import('./listen.ts');
      forwardUrl(forwardTo);
      const partnerWide = values.partner === true;
      const s = await (partnerWide ? partner() : session());
      const stop = new AbortController();
      let stopping = false;
      const onSignal = (): void => {
        // A second Ctrl-C does not wait for the forwards in flight.
        if (stopping) process.exit(130);
        stopping = true;
        stop.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        await listen(s, { forwardTo, events, after, partner: partnerWide }, out, stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return EXIT.ok;
    }
    case 'trigger': {
      if (values.list === true) {
        expectPositionals(command, positionals, 0, '');
        const extra = ['fixture', 'story', 'override', 'add', 'customer', 'allow-destructive'].find((k) => values[k] !== undefined);
        if (extra !== undefined) throw new UsageError(`pgw trigger --list: --${extra} belongs to a run (pgw trigger <event-type> or --fixture FILE)`);
        out((await import('./recipes.ts')).listing());
        return EXIT.ok;
      }
      const { applyEdits, loadFixtureFile, parseEdit } = await import('./fixtures.ts');
      const { builtInFixture, listing, recipes, runUserFixture, stories, trigger } = await import('./recipes.ts');
      const story = values.story as string | undefined;
      if (story !== undefined && values.fixture !== undefined) throw new UsageError('pgw trigger: --story and --fixture exclude each other');
      // A story is a fixture of this package's (fixtures/stories/), named without its path.
      const told = story === undefined ? undefined : stories().get(story);
      if (story !== undefined && told === undefined) throw new UsageError(`unknown story "${story}"${suggest(story, [...stories().keys()])}. pgw trigger --list shows them`);
      const file = told ?? (values.fixture as string | undefined);
      const edits: Edit[] = [
        ...((values.override as string[] | undefined) ?? []).map((t) => parseEdit('override', t)),
        ...((values.add as string[] | undefined) ?? []).map((t) => parseEdit('add', t)),
      ];
      const customer = values.customer as string | undefined;
      const args: Record<string, string> = customer === undefined ? {} : { customer };
      const options = { allowDestructive: values['allow-destructive'] === true };
      if (file !== undefined && positionals.length === 0) {
        // A user's fixture on its own: it says what it does; no event type is implied.
        const fixture = applyEdits(loadFixtureFile(file), edits, file);
        await runUserFixture(await sessionFor(fixture), fixture, file, args, out, options);
        return EXIT.ok;
      }
      expectPositionals(command, positionals, 1, 'the event type (pgw trigger --list shows them)');
      const type = positionals[0] ?? '';
      if (!(eventTypes() as readonly string[]).includes(type)) throw new UsageError(`unknown event type "${type}"${suggest(type, eventTypes())}. pgw trigger --list shows them`);
      if (file === undefined && !recipes[type as WebhookEventName]) throw new UsageError(`${type} cannot be triggered: ${listing().split('\n').find((l) => l.trim().startsWith(`${type} `))?.trim().slice(type.length).trim() ?? 'no fixture'}`);
      const base = file === undefined ? builtInFixture(type as WebhookEventName) : loadFixtureFile(file);
      const fixture = base === undefined ? undefined : applyEdits(base, edits, file ?? `cli/fixtures/${type}.json`);
      await trigger(await (fixture === undefined ? session() : sessionFor(fixture)), type as WebhookEventName, out, fixture, args, options);
      return EXIT.ok;
    }
    case 'events': {
      if (positionals[0] !== 'resend') throw new UsageError(`pgw events: ${positionals[0] === undefined ? 'a subcommand is missing' : `unknown subcommand "${positionals[0]}"`} (pgw events resend <deliveryId|eventId> [--force])`);
      expectPositionals('events', positionals.slice(1), 1, 'the delivery id or event id');
      const id = positionals[1] ?? '';
      if (!UUID.test(id)) throw new UsageError(`"${id}" is not a delivery or event id (a UUID; pgw logs lists them)`);
      await (await import('./commands.ts')).resend(await session(), id, values.force === true, out);
      return EXIT.ok;
    }
    case 'clock': {
      if (positionals.length === 0) {
        await (await import('./commands.ts')).showClock(await session(), out);
        return EXIT.ok;
      }
      if (positionals[0] !== 'advance') throw new UsageError(`pgw clock: unknown subcommand "${positionals[0] ?? ''}" (pgw clock, or pgw clock advance <duration>)`);
      expectPositionals('clock', positionals.slice(1), 1, 'the duration (e.g. 1d)');
      const seconds = parseDuration(positionals[1] ?? '');
      await (await import('./commands.ts')).advanceClock(await session(), seconds, out);
      return EXIT.ok;
    }
    case 'logs': {
      expectPositionals(command, positionals, 0, '');
      const limitText = (values.limit as string | undefined) ?? '20';
      const limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw new UsageError(`--limit "${limitText}" must be a whole number from 1 to 100`);
      const status = values.status as string | undefined;
      if (status !== undefined && !['Pending', 'Succeeded', 'Failed'].includes(status)) throw new UsageError(`--status "${status}" must be Pending, Succeeded or Failed`);
      const type = values.type as string | undefined;
      if (type !== undefined && !(eventTypes() as readonly string[]).includes(type)) throw new UsageError(`--type: unknown event type "${type}"${suggest(type, eventTypes())}`);
      await (await import('./commands.ts')).showLogs(await session(), { limit, status, type }, out);
      return EXIT.ok;
    }
    case 'sandbox': {
      const sub = positionals[0];
      const onlyFor = (flag: string): void => {
        if (values[flag] !== undefined && sub !== 'create') throw new UsageError(`pgw sandbox ${sub ?? ''}: --${flag} belongs to pgw sandbox create`);
      };
      for (const flag of ['name', 'expires', 'write']) onlyFor(flag);
      if (sub === 'create') {
        expectPositionals('sandbox create', positionals.slice(1), 0, '');
        const expires = values.expires as string | undefined;
        const name = values.name as string | undefined;
        if (name !== undefined && (name.trim() === '' || name.length > 200)) throw new UsageError('--name must be 1 to 200 characters');
        const options = { name, expiresInSeconds: expires === undefined ? undefined : parseDuration(expires, SANDBOX_EXPIRY), write: values.write as string | undefined };
        await (await import('./sandbox.ts')).createSandbox(await partner(), options, out);
        return EXIT.ok;
      }
      if (sub === 'list') {
        expectPositionals('sandbox list', positionals.slice(1), 0, '');
        await (await import('./sandbox.ts')).listSandboxes(await partner(), out);
        return EXIT.ok;
      }
      if (sub === 'delete') {
        expectPositionals('sandbox delete', positionals.slice(1), 1, 'the sandbox merchant id');
        const id = positionals[1] ?? '';
        if (!UUID.test(id)) throw new UsageError(`"${id}" is not a merchant id (a UUID; pgw sandbox list shows them)`);
        await (await import('./sandbox.ts')).deleteSandbox(await partner(), id, out);
        return EXIT.ok;
      }
      const subs = ['create', 'list', 'delete'];
      throw new UsageError(`pgw sandbox: ${sub === undefined ? 'a subcommand is missing' : `unknown subcommand "${sub}"${suggest(sub, subs)}`} (pgw sandbox create|list|delete)`);
    }
    case 'reset': {
      expectPositionals(command, positionals, 0, '');
      await (await import('./sandbox.ts')).resetSandbox(await session(), out);
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown command "${command}". See pgw --help`);
  }
}

run(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    const code = exitCodeOf(error);
    process.stderr.write(`pgw: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = code;
  },
);
