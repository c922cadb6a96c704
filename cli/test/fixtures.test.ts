// Trigger fixtures: the loader refuses each class of bad fixture naming the step (unknown operation, missing
// path parameter, unknown and forward references, bad clock steps, bad shape), --override/--add edit a step's
// request (and refuse a field that is not there / already there), a user's fixture runs with --customer as
// args.customer, and a failing step stops naming the step and the server's error. Every built-in fixture is
// run against the bundled server, its event received, in listen.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, checkFixture, follow, parseEdit } from '../src/fixtures.ts';
import { eventTypes } from '../src/event-types.ts';
import { builtInFixture, recipes } from '../src/recipes.ts';
import { pgw, ROOT, startGateway, type Gateway } from './helpers.ts';

const CARD = { pan: '${card.000}', expirationMonth: 12, expirationYear: 2030, securityCode: '123' };
const sale = { name: 'sale', operation: 'createCardSale', body: { amount: 10, card: CARD } };
const fixture = (steps: unknown[]): unknown => ({ description: 'a test', steps });

describe('the fixture loader', () => {
  it.each([
    ['an unknown operation', [{ name: 'x', operation: 'createCardSal' }], /step 1 "x": unknown operation "createCardSal"/],
    ['a missing path parameter', [{ name: 'void', operation: 'voidCardTransaction' }], /step 1 "void": voidCardTransaction .* needs path.transactionId/],
    ['a reference to no step', [sale, { name: 'void', operation: 'voidCardTransaction', path: { transactionId: '${sael.transactionId}' } }], /step 2 "void": \$\{sael.transactionId\} refers to no step "sael"/],
    ['a reference to a later step', [{ name: 'void', operation: 'voidCardTransaction', path: { transactionId: '${sale.transactionId}' } }, sale], /step 1 "void": .* refers to step "sale", which has not run yet/],
    ['a reference to its own answer in its request', [{ ...sale, body: { amount: '${sale.amount}', card: CARD } }], /step 1 "sale": .* refers to step "sale", which has not run yet/],
    ['a reference in the body text', [sale, { name: 'b', operation: 'createCardSale', body: { amount: 1, description: 'of ${nothere.id}', card: CARD } }], /step 2 "b": .* refers to no step "nothere"/],
    ['a clock step of zero seconds', [{ name: 'later', clock: { advanceSeconds: 0 } }], /step 1 "later": clock.advanceSeconds must be a whole number of seconds, at least 1/],
    ['a clock step of a fraction', [{ name: 'later', clock: { advanceSeconds: 1.5 } }], /step 1 "later": clock.advanceSeconds must be a whole number/],
    ['a clock step of text', [{ name: 'later', clock: { advanceSeconds: 'soon' } }], /step 1 "later": clock.advanceSeconds must be a number or a reference/],
    ['a clock step without seconds', [{ name: 'later', clock: {} }], /not a fixture: .*advanceSeconds/],
    ['a step with both an operation and a clock', [{ name: 'x', operation: 'createCardSale', clock: { advanceSeconds: 1 } }], /not a fixture/],
    ['a repeated step name', [sale, sale], /step 2 "sale": the name is used by an earlier step/],
    ['a reserved step name', [{ ...sale, name: 'args' }], /step 1 "args": "args" is reserved/],
    ['no steps', [], /not a fixture: \/steps/],
  ])('refuses %s, naming the step', (_name, steps, message) => {
    expect(() => checkFixture(fixture(steps), 'test.json')).toThrow(message);
  });

  it('refuses a file that is not a fixture at all', () => {
    expect(() => checkFixture({ steps: [sale] }, 'test.json')).toThrow(/fixture test.json: not a fixture: .*description/);
    expect(() => checkFixture({ description: 'x', key: 'admin', steps: [sale] }, 'test.json')).toThrow(/not a fixture: \/key must be equal to one of the allowed values/);
    expect(checkFixture({ description: 'x', key: 'partner', steps: [sale] }, 'test.json').key).toBe('partner');
    expect(() => checkFixture({ description: 'x', steps: [sale], extra: 1 }, 'test.json')).toThrow(/additional properties/);
  });

  it('accepts references to earlier steps, built-ins and a step\'s own answer in its say', () => {
    const ok = checkFixture(fixture([{ ...sale, say: 'sale ${sale.transactionId}' }, { name: 'void', operation: 'voidCardTransaction', path: { transactionId: '${sale.transactionId}' } }, { name: 'later', clock: { advanceSeconds: '${args.seconds}' } }]), 't');
    expect(ok.steps).toHaveLength(3);
  });

  it('follows paths with indexes and filters, a filter value may name a contract enum', () => {
    const v = { list: [{ typeId: 1, id: 'a' }, { typeId: 3, id: 'b' }] };
    expect(follow(v, 'list[1].id')).toBe('b');
    expect(follow(v, 'list[typeId=1].id')).toBe('a');
    expect(follow(v, 'list[typeId=9].id')).toBeUndefined();
    expect(follow(v, 'nothing.deeper')).toBeUndefined();
  });

  it('overrides a field that is there and adds one that is not; refuses the other way round and unknown steps', () => {
    const f = checkFixture(fixture([sale, { name: 'void', operation: 'voidCardTransaction', path: { transactionId: '${sale.transactionId}' } }, { name: 'later', clock: { advanceSeconds: 60 } }]), 't');
    const edited = applyEdits(f, [parseEdit('override', 'sale:card.pan=4000000000000002'), parseEdit('override', 'sale:amount=7.25'), parseEdit('add', 'sale:billingAddress.postalCode=78701'),
      parseEdit('override', 'void:path.transactionId=abc'), parseEdit('override', 'later:advanceSeconds=3600')], 't');
    expect(edited.steps[0]).toMatchObject({ body: { amount: 7.25, card: { pan: '4000000000000002' }, billingAddress: { postalCode: 78701 } } });
    expect(edited.steps[1]).toMatchObject({ path: { transactionId: 'abc' } });
    expect(edited.steps[2]).toMatchObject({ clock: { advanceSeconds: 3600 } });
    // The original is left as it was.
    expect(f.steps[0]).toMatchObject({ body: { amount: 10 } });
    expect(() => applyEdits(f, [parseEdit('override', 'sale:tipAmount=1')], 't')).toThrow(/step "sale" has no tipAmount to override \(--add adds a field\)/);
    expect(() => applyEdits(f, [parseEdit('add', 'sale:amount=1')], 't')).toThrow(/step "sale" already has amount \(--override changes it\)/);
    expect(() => applyEdits(f, [parseEdit('override', 'sael:amount=1')], 't')).toThrow(/has no step "sael" \(steps: sale, void, later\)/);
    expect(() => applyEdits(f, [parseEdit('override', 'sale:amount.x=1')], 't')).toThrow(/amount is not an object/);
    expect(() => applyEdits(f, [parseEdit('override', 'later:advanceSeconds=0')], 't')).toThrow(/at least 1/);
    expect(() => parseEdit('add', 'sale.amount=1')).toThrow(/write step:field.path=value/);
  });

  it('accepts the example fixture of cli/README.md (the documentation does not drift from the loader)', () => {
    const readme = readFileSync(path.join(ROOT, 'cli', 'README.md'), 'utf8');
    const example = /\n## Trigger fixtures\n[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(checkFixture(JSON.parse(example ?? ''), 'cli/README.md').steps.map((s) => s.name)).toEqual(['sale', 'void', 'later']);
  });

  it('loads every built-in fixture, one per triggerable event type', () => {
    const types = Object.keys(recipes);
    expect(types.length).toBeGreaterThanOrEqual(20);
    for (const type of types) {
      expect(eventTypes()).toContain(type);
      expect(builtInFixture(type as never)).toBeDefined();
    }
  });
});

describe('pgw trigger with fixtures against the bundled server', () => {
  let g: Gateway;
  let env: Record<string, string>;
  const write = (name: string, f: unknown): string => {
    const file = path.join(g.dir, name);
    writeFileSync(file, JSON.stringify(f));
    return file;
  };
  beforeAll(async () => {
    g = await startGateway();
    env = { PGW_CONFIG: g.config };
  });
  afterAll(async () => { await g.close(); });

  it('overrides a built-in fixture\'s field: the sale with the declining card is declined', async () => {
    const declining = (await pgw(['trigger', '--list'], {})).stdout.match(/declining card (\d+)/)?.[1] ?? '';
    const run = await pgw(['trigger', 'payment.card.captured', '--override', `sale:card.pan=${declining}`], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/card sale [0-9a-f-]{36}: Declined/);
    const bad = await pgw(['trigger', 'payment.card.captured', '--override', 'sale:nothing=1'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/step "sale" has no nothing to override/);
  });

  it('runs the reusable payment link story (cli/fixtures/stories): two payments, counted, the link Paid, one quick_payment.paid each', async () => {
    const run = await pgw(['trigger', 'quick_payment.paid', '--story', 'reusable-payment-link'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/payment 1 of 2, 25 for 2 tickets by transaction [0-9a-f-]{36}; Active/);
    expect(run.stdout).toMatch(/payment 2 of 2, 12.5 for 1 ticket by transaction [0-9a-f-]{36}; Paid, 37.5 collected/);
    expect(run.stdout).toMatch(/2 payments listed/);
    const id = /payment link ([0-9a-f-]{36}): created/.exec(run.stdout)?.[1] ?? '';
    const link = (await g.s.db('quick_payments').where({ id }).first()) as { status: string; payment_count: number | string; collected_cents: number | string };
    expect([link.status, Number(link.payment_count), Number(link.collected_cents)]).toEqual(['Paid', 2, 3750]);
    const events = (await g.s.db('outbox_events').where({ type: 'quick_payment.paid' }).select<{ payload: string }[]>('payload'))
      .filter((e) => (JSON.parse(e.payload) as { id: string }).id === id);
    expect(events).toHaveLength(2);
  });

  it('runs a user fixture: --customer as args.customer, --override and --add, references between steps', async () => {
    const file = write('invoice.json', {
      description: 'an invoice for ${args.customer}',
      steps: [
        { name: 'sale', operation: 'createCardSale', body: { amount: 10, card: CARD }, say: 'sale ${sale.transactionId} of ${sale.requestedAmount}' },
        { name: 'invoice', operation: 'createInvoice', body: { dueDate: '${now+30d}', customer: { firstName: '${args.customer}', lastName: 'Doe', email: 'jane@example.com' },
          lineItems: [{ lineItemId: null, productName: 'after ${sale.transactionId}', unitTypeId: 1, unitPrice: 20, quantity: 1 }] } },
        { name: 'got', operation: 'getInvoice', path: { invoiceId: '${invoice.id}' }, say: 'invoice ${got.id} for ${got.customer.firstName}: ${got.lineItems[0].productName}' },
        { name: 'later', clock: { advanceSeconds: 60 }, say: 'clock moved' },
      ],
    });
    const run = await pgw(['trigger', '--fixture', file, '--customer', 'Ada', '--override', 'sale:amount=7.25', '--add', 'sale:tipAmount=1'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Running ${file}: an invoice for Ada`);
    const saleId = /sale ([0-9a-f-]{36}) of 7.25/.exec(run.stdout)?.[1];
    expect(saleId, run.stdout).toBeDefined();
    expect(run.stdout).toMatch(new RegExp(`invoice [0-9a-f-]{36} for Ada: after ${saleId ?? ''}`));
    expect(run.stdout).toContain('clock moved');
    // The added field is sent: a tip that is no amount is the server's refusal, at that step.
    const added = await pgw(['trigger', '--fixture', file, '--customer', 'Ada', '--add', 'sale:tipAmount="a lot"'], env);
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(/step 1 "sale" of .*invoice.json failed: 400 \$.tipAmount: The JSON value must be number/);
    expect(added.stderr).not.toContain('[object Object]');
    const missing = await pgw(['trigger', '--fixture', file], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\$\{args.customer\} is not there \(pass it: --customer/);
  });

  it('runs a user fixture written in YAML (by its name), and refuses YAML that does not parse, naming the file', async () => {
    const file = path.join(g.dir, 'sale.yaml');
    writeFileSync(file, [
      '# a sale, then its void, then a day',
      'description: a YAML sale for ${args.customer}',
      'steps:',
      '  - name: sale',
      '    operation: createCardSale',
      '    body: { amount: 12.5, card: { pan: "${card.000}", expirationMonth: 12, expirationYear: 2030, securityCode: "123" } }',
      '    say: yaml sale ${sale.transactionId} of ${sale.requestedAmount}',
      '  - name: void',
      '    operation: voidCardTransaction',
      '    path: { transactionId: "${sale.transactionId}" }',
      '    say: voided ${void.transactionId}',
      '  - name: later',
      '    clock: { advanceSeconds: 86400 }',
      '',
    ].join('\n'));
    const run = await pgw(['trigger', '--fixture', file, '--customer', 'Ada', '--override', 'sale:amount=3.75'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Running ${file}: a YAML sale for Ada`);
    const saleId = /yaml sale ([0-9a-f-]{36}) of 3.75/.exec(run.stdout)?.[1];
    expect(saleId, run.stdout).toBeDefined();
    expect(run.stdout).toContain(`voided ${saleId ?? ''}`);
    const broken = path.join(g.dir, 'broken.yml');
    writeFileSync(broken, 'description: x\nsteps:\n  - name: [unclosed\n');
    const refused = await pgw(['trigger', '--fixture', broken], { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/the fixture .*broken.yml is not valid YAML/);
    // The same text under a .json name is read as JSON, and refused as JSON.
    const misnamed = path.join(g.dir, 'sale-yaml.json');
    writeFileSync(misnamed, readFileSync(file, 'utf8'));
    const json = await pgw(['trigger', '--fixture', misnamed], { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/is not valid JSON/);
  });

  it('runs the subscription stories of cli/fixtures/stories: a trial ending, a prorated upgrade, a pause over a renewal date', async () => {
    // Named without a path (--story): the package's own fixtures/stories/, as an installed CLI finds them.
    const list = await pgw(['trigger', '--list'], env);
    expect(list.stdout).toMatch(/Stories \(pgw trigger --story NAME\):\n {2}reusable-payment-link +\S/);
    for (const name of ['subscription.paused-over-renewal', 'subscription.prorated-upgrade', 'subscription.trial-ending']) expect(list.stdout).toContain(`  ${name} `);
    const unknown = await pgw(['trigger', '--story', 'subscription.trial-endng'], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringMatching(/unknown story "subscription.trial-endng" \(did you mean subscription.trial-ending\?\)/)]);
    const story = (name: string): string[] => ['--story', name];
    const trial = await pgw(['trigger', ...story('subscription.trial-ending')], env);
    expect(trial.code, trial.stderr).toBe(0);
    expect(trial.stdout).toMatch(/subscription [0-9a-f-]{36}: Trialing until \S+, nothing charged/);
    expect(trial.stdout).toMatch(/subscription [0-9a-f-]{36}: Active, 1 payment\(s\), next due \S+/);

    const upgrade = await pgw(['trigger', ...story('subscription.prorated-upgrade')], env);
    expect(upgrade.code, upgrade.stderr).toBe(0);
    const m = /upgraded to 49.99: (\d+) of (\d+) s left, credit ([\d.]+), charge ([\d.]+), charged ([\d.]+) now \(transaction [0-9a-f-]{36}\)/.exec(upgrade.stdout);
    expect(m, upgrade.stdout).not.toBeNull();
    const [left, period, credit, charge, charged] = (m ?? []).slice(1).map(Number) as [number, number, number, number, number];
    // The spec's formula, to the cent: each term rounded half away from zero.
    const share = (cents: number): number => Math.round((cents * left) / period) / 100;
    expect([credit, charge, charged]).toEqual([share(2999), share(4999), Math.round((share(4999) - share(2999)) * 100) / 100]);

    const pause = await pgw(['trigger', ...story('subscription.paused-over-renewal')], env);
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toMatch(/subscription [0-9a-f-]{36}: Paused since \S+/);
    expect(pause.stdout).toMatch(/subscription [0-9a-f-]{36}: Paused, still 1 payment\(s\), nothing charged at the renewal date/);
    expect(pause.stdout).toMatch(/subscription [0-9a-f-]{36}: Active, 1 payment\(s\), next due \S+/);
  }, 60_000);

  it('runs a user fixture in place of an event type\'s built-in one', async () => {
    const file = write('captured.json', { description: 'my own sale', steps: [{ ...sale, say: 'my sale ${sale.transactionId}: ${sale.status}' }] });
    const run = await pgw(['trigger', 'payment.card.captured', '--fixture', file, '--add', 'sale:orderNumber=A-17'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Triggering payment.card.captured: my own sale\n {2}my sale [0-9a-f-]{36}: Captured/);
  });

  it('stops at a failing step, naming it and the server\'s error; the steps after it do not run', async () => {
    const file = write('fails.json', { description: 'a void of nothing', steps: [
      { name: 'void', operation: 'voidCardTransaction', path: { transactionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } },
      { name: 'sale', operation: 'createCardSale', body: { amount: 10, card: CARD } },
    ] });
    const run = await pgw(['trigger', '--fixture', file], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/step 1 "void" of .*fails.json failed: 404/);
    expect(run.stdout).not.toMatch(/sale:/);
  });

  it('refuses a bad user fixture before any request, naming the step', async () => {
    const file = write('bad.json', fixture([{ name: 'void', operation: 'voidCardTransaction', path: { transactionId: '${sale.transactionId}' } }, sale]));
    const run = await pgw(['trigger', '--fixture', file], { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/step 1 "void": .* refers to step "sale", which has not run yet/);
    const listed = await pgw(['trigger', '--list', '--override', 'sale:amount=1'], {});
    expect(listed.code).toBe(2);
    expect(listed.stderr).toMatch(/--override belongs to a run/);
    const badEdit = await pgw(['trigger', 'payment.card.captured', '--add', 'amount=1'], { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(badEdit.code).toBe(2);
    expect(badEdit.stderr).toMatch(/--add "amount=1": write step:field.path=value/);
    const none = await pgw(['trigger', '--fixture', path.join(g.dir, 'absent.json')], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/cannot read the fixture .*absent.json: ENOENT/);
  });
});
