// `pgw trigger`: runs a fixture (the built-in one of an event type, cli/fixtures/<type>.json, or the user's)
// step by step through the CLI's session, printing what each step made. The event types no operation can
// produce are listed with the reason.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { describeError, guard, type Session } from './api.ts';
import { ApiError, UsageError } from './errors.ts';
import { eventTypes } from './event-types.ts';
import { interpolate, isClock, loadFixtureFile, resolve, routeOf, type Answers, type Fixture, type Json, type JsonObject, type Step } from './fixtures.ts';

type Say = (text: string) => void;

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
  return file === undefined ? undefined : loadFixtureFile(file);
};

/** Why the other event types of the spec cannot be triggered (none today: each has a built-in fixture). */
export const notTriggerable: Partial<Record<WebhookEventName, string>> = {};

/** A fixture's description with its references to the contract (`${card.005}`) filled in. */
const describe = (fixture: Fixture, source: string, args: JsonObject = {}): string =>
  interpolate(fixture.description, { args: { ...fixture.args, ...args }, steps: new Map() }, `fixture ${source}, description`, true);

export function listing(): string {
  const lines = ['Event types pgw trigger makes happen (through the API and the sandbox controls):'];
  for (const type of eventTypes()) {
    const fixture = builtInFixture(type);
    if (fixture) lines.push(`  ${type.padEnd(28)} ${describe(fixture, type)}`);
  }
  const others = eventTypes().filter((type) => !recipes[type]);
  if (others.length > 0) lines.push('', 'Event types it cannot trigger, and why:');
  for (const type of others) lines.push(`  ${type.padEnd(28)} ${notTriggerable[type] ?? 'no fixture: no operation is known to produce it'}`);
  return lines.join('\n');
}

type Request = (method: string, url: string, init: { params: { path: JsonObject; query: JsonObject }; body?: Json }) =>
  Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** What a step made, when its fixture does not say: its answer's id, if it has one. */
function madeOf(step: Step, answer: unknown, status: number): string {
  const target = isClock(step) ? 'clock advance' : step.operation;
  const id = ['transactionId', 'id', 'terminalId', 'subscriptionId', 'clientId'].map((k) => (answer as Record<string, unknown> | undefined)?.[k]).find((v) => typeof v === 'string');
  return `${step.name}: ${target} ${String(status)}${id === undefined ? '' : ` ${id}`}`;
}

/** Runs one fixture's steps in order; a failing step stops the run with the step's name and the server's answer. */
export async function runFixture(session: Session, fixture: Fixture, args: JsonObject, say: Say, source: string): Promise<void> {
  const answers: Answers = { args: { ...fixture.args, ...args }, steps: new Map() };
  const request = session.api.request as unknown as Request;
  for (const [i, step] of fixture.steps.entries()) {
    const where = `step ${String(i + 1)} "${step.name}" of ${source}`;
    // `${now}` is the merchant's business clock, which the server judges dates by (a due date 30 days from
    // wall time is already past once the sandbox clock is ahead); read again before each step that names it,
    // as a clock step moves it. A partner's fixture has no merchant clock: wall time.
    if (fixture.key !== 'partner' && JSON.stringify(step).includes('${now')) {
      const clock = await guard(session.config, () => session.api.GET('/sandbox/v1/clock'));
      if (clock.data !== undefined) answers.now = new Date(clock.data.now);
    }
    const [method, url, init] = isClock(step)
      ? ['post', '/sandbox/v1/clock/advance', { params: { path: {}, query: {} }, body: { seconds: resolve(step.clock.advanceSeconds, answers, where) ?? null } }]
      : [routeOf(step.operation)?.method ?? 'get', routeOf(step.operation)?.path ?? '', {
        params: { path: resolve(step.path ?? {}, answers, where) as JsonObject, query: resolve(step.query ?? {}, answers, where) as JsonObject },
        ...(step.body === undefined ? {} : { body: resolve(step.body, answers, where) ?? null }),
      }];
    const { data, error, response } = await guard(session.config, () => request(method.toUpperCase(), url, init));
    if (error !== undefined || !response.ok) {
      throw new ApiError(`${where} failed: ${String(response.status)} ${describeError(error)}`.trim(), response.status, error);
    }
    answers.steps.set(step.name, data);
    // An empty `say` keeps a step quiet (a look-up, not something made).
    if (step.say === '') continue;
    say(step.say === undefined ? madeOf(step, data, response.status) : interpolate(step.say, answers, where, true));
  }
}

export async function trigger(session: Session, type: WebhookEventName, say: Say, fixture: Fixture | undefined, args: JsonObject): Promise<void> {
  const chosen = fixture ?? builtInFixture(type);
  if (!chosen) throw new UsageError(`cannot trigger ${type}`);
  say(`Triggering ${type}: ${describe(chosen, type, args)}`);
  await runFixture(session, chosen, args, (text) => { say(`  ${text}`); }, fixture ? 'the fixture' : `cli/fixtures/${type}.json`);
  say(chosen.key === 'partner'
    ? `Done: ${type} was emitted (see pgw listen --partner: a new merchant has no webhook endpoint yet).`
    : `Done: ${type} was emitted (see pgw listen, or pgw logs for deliveries to your webhooks).`);
}

/** `pgw trigger --fixture FILE` without an event type: the fixture alone. */
export async function runUserFixture(session: Session, fixture: Fixture, file: string, args: JsonObject, say: Say): Promise<void> {
  say(`Running ${file}: ${describe(fixture, file, args)}`);
  await runFixture(session, fixture, args, (text) => { say(`  ${text}`); }, file);
  say(`Done: ${file} ran (see pgw listen for its events).`);
}
