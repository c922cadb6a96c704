// `pgw trigger`: runs a fixture (the built-in one of an event type, cli/fixtures/<type>.json, or the user's)
// step by step through the CLI's session, printing what each step made. The event types no operation can
// produce are listed with the reason.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { describeError, guard, type Session } from './api.ts';
import { consentFor, stepsNeedingConsent, type ConsentStep } from './consent.ts';
import { ApiError, UsageError } from './errors.ts';
import { eventTypes } from './event-types.ts';
import { checkPathsBeforeRun, interpolate, isClock, loadFixtureFile, markBuiltIn, originOf, resolve, stepRequest, type Answers, type Fixture, type Json, type JsonObject, type Step } from './fixtures.ts';
import { safePrinter, terminalSafe } from './terminal.ts';

type Say = (text: string) => void;

/** What the user allowed a run: `--allow-destructive`, the steps of consent.ts. */
export interface RunOptions { allowDestructive?: boolean }

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));


/** The built-in fixtures, by event type: one file per type; a file naming no event type is refused. */
function builtIns(): Partial<Record<WebhookEventName, string>> {
  const found: Partial<Record<WebhookEventName, string>> = {};
  for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json'))) {
    const type = file.slice(0, -'.json'.length);
    if (!(eventTypes() as readonly string[]).includes(type)) throw new Error(`cli/fixtures/${file} names no event type of the spec`);
    found[type as WebhookEventName] = `${FIXTURES}${file}`;
  }
  return found;
}

/** The built-in fixture files of the triggerable event types. */
export const recipes: Partial<Record<WebhookEventName, string>> = builtIns();

export const builtInFixture = (type: WebhookEventName): Fixture | undefined => {
  const file = recipes[type];
  return file === undefined ? undefined : markBuiltIn(loadFixtureFile(file), type);
};

/** The stories beyond an event type's first one (fixtures/stories/NAME.json of this package), by name. */
export function stories(): Map<string, string> {
  const dir = `${FIXTURES}stories/`;
  if (!existsSync(dir)) return new Map();
  return new Map(readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => [f.slice(0, -'.json'.length), `${dir}${f}`]));
}

/** Why the other event types of the spec cannot be triggered (none today: each has a built-in fixture). */
export const notTriggerable: Partial<Record<WebhookEventName, string>> = {};

/** A fixture's description with its references to the contract (`${card.005}`) filled in. */
const describe = (fixture: Fixture, source: string, args: JsonObject = {}): string =>
  interpolate(fixture.description, { args: { ...fixture.args, ...args }, steps: new Map() }, `fixture ${source}, description`, true);

/** The steps that need consent, in a line: `creates an API key (step key, createApiKey); ...`. */
const consentLine = (steps: readonly ConsentStep[]): string =>
  steps.map((c) => `${c.does} (step ${String(c.index + 1)} "${c.name}", ${c.operation})`).join('; ');

export function listing(): string {
  const lines = ['Event types pgw trigger makes happen (through the API and the sandbox controls):'];
  let marked = false;
  for (const type of eventTypes()) {
    const fixture = builtInFixture(type);
    if (!fixture) continue;
    lines.push(`  ${type.padEnd(28)} ${describe(fixture, type)}`);
    const consent = stepsNeedingConsent(fixture);
    if (consent.length > 0) {
      marked = true;
      lines.push(`  ${'!'.padStart(28)} ${consentLine(consent)}`);
    }
  }
  if (marked) {
    lines.push('', '! a step that destroys records, makes a credential or registers a webhook off this machine. A built-in',
      '  fixture runs it (it is what the event type names); your own fixture (--fixture FILE) with such a step is',
      '  refused unless --allow-destructive is given.');
  }
  const told = [...stories()];
  if (told.length > 0) lines.push('', 'Stories (pgw trigger --story NAME):');
  for (const [name, file] of told) lines.push(`  ${name.padEnd(36)} ${describe(loadFixtureFile(file), name)}`);
  const others = eventTypes().filter((type) => !recipes[type]);
  if (others.length > 0) lines.push('', 'Event types it cannot trigger, and why:');
  for (const type of others) lines.push(`  ${type.padEnd(28)} ${notTriggerable[type] ?? 'no fixture: no operation is known to produce it'}`);
  return lines.map(terminalSafe).join('\n');
}

type Request = (method: string, url: string, init: { params: { path: JsonObject; query: JsonObject }; body?: Json }) =>
  Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** What a step made, when its fixture does not say: its answer's id, if it has one. */
function madeOf(step: Step, answer: unknown, status: number): string {
  const target = isClock(step) ? 'clock advance' : step.operation;
  const id = ['transactionId', 'id', 'terminalId', 'subscriptionId', 'clientId'].map((k) => (answer as Record<string, unknown> | undefined)?.[k]).find((v) => typeof v === 'string');
  return `${step.name}: ${target} ${String(status)}${id === undefined ? '' : ` ${id}`}`;
}

/** Who wrote the fixture, in messages: the built-in file, or the user's. */
const sourceOf = (fixture: Fixture, fallback: string): string => {
  const origin = originOf(fixture);
  return origin === undefined ? fallback : 'builtIn' in origin ? `cli/fixtures/${origin.builtIn}.json` : origin.file;
};

/**
 * Refuses, before anything is sent, a fixture that is not built-in with steps needing consent (consent.ts)
 * when --allow-destructive was not given, naming each.
 */
function checkConsent(fixture: Fixture, args: JsonObject, source: string, options: RunOptions): void {
  if (options.allowDestructive === true || isBuiltIn(fixture)) return;
  const steps = stepsNeedingConsent(fixture, args);
  if (steps.length === 0) return;
  throw new UsageError(`${source} has ${steps.length === 1 ? 'a step that needs' : 'steps that need'} --allow-destructive: ${consentLine(steps)}. Nothing was sent; read the fixture, and run it again with --allow-destructive if you mean it`);
}

const isBuiltIn = (fixture: Fixture): boolean => {
  const origin = originOf(fixture);
  return origin !== undefined && 'builtIn' in origin;
};

/**
 * Runs one fixture's steps in order; a failing step stops the run with the step's name and the server's answer.
 * Before the first request: a step needing consent without it, or a path parameter that is not one segment of
 * data, is refused (exit 2). Each line it prints, and each error's message, is terminal-safe (terminal.ts).
 */
export async function runFixture(session: Session, fixture: Fixture, args: JsonObject, say: Say, source: string, options: RunOptions = {}): Promise<void> {
  const print = safePrinter(say);
  const answers: Answers = { args: { ...fixture.args, ...args }, steps: new Map() };
  const request = session.api.request as unknown as Request;
  const whereOf = (i: number, step: Step): string => `step ${String(i + 1)} "${step.name}" of ${source}`;
  checkConsent(fixture, args, source, options);
  checkPathsBeforeRun(fixture, answers, whereOf);
  for (const [i, step] of fixture.steps.entries()) {
    const where = whereOf(i, step);
    // `${now}` is the merchant's business clock, which the server judges dates by (a due date 30 days from
    // wall time is already past once the sandbox clock is ahead); read again before each step that names it,
    // as a clock step moves it. A partner's fixture has no merchant clock: wall time.
    if (fixture.key !== 'partner' && JSON.stringify(step).includes('${now')) {
      const clock = await guard(session.config, () => session.api.GET('/sandbox/v1/clock'));
      if (clock.data !== undefined) answers.now = new Date(clock.data.now);
    }
    // The URL is written here, each path parameter one encoded segment (request-url.ts): the client is given
    // no parameters to fill in.
    const { method, url, body } = isClock(step)
      ? { method: 'POST', url: '/sandbox/v1/clock/advance', body: { seconds: resolve(step.clock.advanceSeconds, answers, where) ?? null } }
      : stepRequest(step, answers, where);
    // A webhook's URL known only now (an earlier step's answer) is judged again, as sent.
    if (!isClock(step) && options.allowDestructive !== true && !isBuiltIn(fixture)) {
      const rule = consentFor(step, body);
      if (rule !== undefined) throw new UsageError(`${where} ${rule.does} (${step.operation}): it needs --allow-destructive; it was not sent`);
    }
    const init = { params: { path: {}, query: {} }, ...(body === undefined ? {} : { body }) };
    const { data, error, response } = await guard(session.config, () => request(method, url, init));
    if (error !== undefined || !response.ok) {
      throw new ApiError(`${where} failed: ${String(response.status)} ${describeError(error)}`.trim(), response.status, error);
    }
    answers.steps.set(step.name, data);
    // An empty `say` keeps a step quiet (a look-up, not something made).
    if (step.say === '') continue;
    print(step.say === undefined ? madeOf(step, data, response.status) : interpolate(step.say, answers, where, true));
  }
}

/** Runs `work`, its error's message (whatever threw it) made terminal-safe. */
async function safely(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof Error) error.message = terminalSafe(error.message);
    throw error;
  }
}

export async function trigger(session: Session, type: WebhookEventName, say: Say, fixture: Fixture | undefined, args: JsonObject, options: RunOptions = {}): Promise<void> {
  const print = safePrinter(say);
  const chosen = fixture ?? builtInFixture(type);
  if (!chosen) throw new UsageError(`cannot trigger ${type}`);
  const source = sourceOf(chosen, fixture ? 'the fixture' : `cli/fixtures/${type}.json`);
  await safely(async () => {
    checkConsent(chosen, args, source, options);
    print(`Triggering ${type}: ${describe(chosen, source, args)}`);
    await runFixture(session, chosen, args, (text) => { print(`  ${text}`); }, source, options);
  });
  print(chosen.key === 'partner'
    ? `Done: ${type} was emitted (see pgw listen --partner: a new merchant has no webhook endpoint yet).`
    : `Done: ${type} was emitted (see pgw listen, or pgw logs for deliveries to your webhooks).`);
}

/** `pgw trigger --fixture FILE` without an event type: the fixture alone. */
export async function runUserFixture(session: Session, fixture: Fixture, file: string, args: JsonObject, say: Say, options: RunOptions = {}): Promise<void> {
  const print = safePrinter(say);
  await safely(async () => {
    checkConsent(fixture, args, file, options);
    print(`Running ${file}: ${describe(fixture, file, args)}`);
    await runFixture(session, fixture, args, (text) => { print(`  ${text}`); }, file, options);
  });
  print(`Done: ${file} ran (see pgw listen for its events).`);
}
