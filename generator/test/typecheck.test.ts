// The generated types make mismatches compile errors: a missing handler method, a status or a body the
// spec does not allow, fail `tsc`; a faithful implementation compiles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir: string;
const diagnostics = new Map<string, string[]>();

// Each source is a module that implements (part of) the project's Customers handlers.
const sources: Record<string, string> = {
  faithful: `
    import type { CustomersHandlers } from '@pgw/client/handlers';
    import type * as op from '@pgw/client/operations';
    const notFound = { details: 'gone', statusCode: 404, source: 'test', exceptionType: 'NotFoundException',
      correlationId: '6f1c2a4e-9b7d-4c1e-8f3a-2d5e7b9c0a14', entityId: null, errorCode: 'not_found' };
    export const handlers = {
      async createCustomer(): Promise<op.CreateCustomerResult> { return { status: 200, body: { id: '3b2c1d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d' } }; },
      async searchCustomers(input: op.SearchCustomersInput): Promise<op.SearchCustomersResult> {
        return { status: 200, body: { items: [], total: input.query.page ?? 0 } };
      },
      async getCustomer(): Promise<op.GetCustomerResult> { return { status: 404, body: notFound }; },
      async updateCustomer(input: op.UpdateCustomerInput): Promise<op.UpdateCustomerResult> {
        return input.body.lastName ? { status: 200 } : { status: 404, body: notFound };
      },
      async deleteCustomer(): Promise<op.DeleteCustomerResult> { return { status: 200 }; },
    } satisfies CustomersHandlers;
  `,
  missingMethod: `
    import type { CustomersHandlers } from '@pgw/client/handlers';
    import type * as op from '@pgw/client/operations';
    export const handlers = {
      async createCustomer(): Promise<op.CreateCustomerResult> { return { status: 200, body: { id: 'x' } }; },
      async searchCustomers(): Promise<op.SearchCustomersResult> { return { status: 200, body: { items: [], total: 0 } }; },
      async getCustomer(): Promise<op.GetCustomerResult> { throw new Error('x'); },
      async updateCustomer(): Promise<op.UpdateCustomerResult> { return { status: 200 }; },
    } satisfies CustomersHandlers;
  `,
  undocumentedStatus: `
    import type * as op from '@pgw/client/operations';
    export const result: op.CreateCustomerResult = { status: 201, body: { id: 'x' } };
  `,
  wrongBody: `
    import type * as op from '@pgw/client/operations';
    export const result: op.CreateCustomerResult = { status: 200, body: { customerId: 'x' } };
  `,
  wrongInputUse: `
    import type * as op from '@pgw/client/operations';
    export const page = (input: op.SearchCustomersInput): string => input.query.page;
  `,
  stateMachineUse: `
    import { achStateMachine, type AchTransition, type AchTrigger, type StateMachine, type StateTransition } from '@pgw/client/state-machines';
    const trigger: AchTrigger = 'holdAchTransaction';
    export const holds: readonly AchTransition[] = achStateMachine.transitions.filter((row) => row.trigger === trigger && row.from === 21);
    export const anyRow: StateTransition | undefined = achStateMachine.transitions[0];
    export const anyMachine: StateMachine = achStateMachine;
  `,
  stateMachineTypo: `
    import { achStateMachine } from '@pgw/client/state-machines';
    export const rows = achStateMachine.transitions.filter((row) => row.trigger === 'holdAchTransacton');
  `,
  stateMachineBadRow: `
    import type { AchStatus, AchTrigger, StateMachine, TransactionResponseCode } from '@pgw/client/state-machines';
    import type { WebhookEventName } from '@pgw/client/webhooks';
    type Ach = StateMachine<AchStatus, AchTrigger, TransactionResponseCode, WebhookEventName>;
    const machine = { name: 'ach', schema: 'AchTransactionStatus', statuses: {}, refusal: { kind: 'responseCode', responseCode: '101' }, triggers: {} } as const;
    const row = { from: 21, trigger: 'holdAchTransaction', to: 26, responseCodes: ['000'], event: 'payment.ach.held', types: null, provenance: 'seed', note: null } as const;
    export const badCode = { ...machine, transitions: [{ ...row, responseCodes: ['999'] }] } as const satisfies Ach;
    export const badEvent = { ...machine, transitions: [{ ...row, event: 'payment.ach.teleported' }] } as const satisfies Ach;
  `,
};

beforeAll(() => {
  dir = mkdtempSync(path.join(root, 'generator', 'test', '.typecheck-'));
  const files = Object.entries(sources).map(([name, text]) => {
    const file = path.join(dir, `${name}.ts`);
    writeFileSync(file, text);
    return [name, file] as const;
  });
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
  });
  if (!config) throw new Error('no tsconfig');
  const program = ts.createProgram(files.map(([, file]) => file), config.options);
  for (const [name, file] of files) {
    const source = program.getSourceFile(file);
    const found = [...program.getSemanticDiagnostics(source), ...program.getSyntacticDiagnostics(source)];
    diagnostics.set(name, found.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')));
  }
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('generated handler types', () => {
  it('accept a faithful implementation', () => {
    expect(diagnostics.get('faithful')).toEqual([]);
  });

  it('reject an implementation that lacks an operation', () => {
    expect(diagnostics.get('missingMethod')?.join('\n')).toMatch(/deleteCustomer/);
  });

  it('reject a status the spec does not document', () => {
    expect(diagnostics.get('undocumentedStatus')?.join('\n')).toMatch(/201/);
  });

  it('reject a body the spec does not allow', () => {
    expect(diagnostics.get('wrongBody')?.join('\n')).toMatch(/customerId/);
  });

  it('type the inputs (a number query parameter is not a string)', () => {
    expect(diagnostics.get('wrongInputUse')?.join('\n')).toMatch(/number/);
  });
});

describe('generated state machine types', () => {
  it('type the rows with literal triggers, and fit the general shapes', () => {
    expect(diagnostics.get('stateMachineUse')).toEqual([]);
  });

  it('reject a trigger the machine does not have', () => {
    expect(diagnostics.get('stateMachineTypo')?.join('\n')).toMatch(/holdAchTransacton/);
  });

  it('reject a response code or an event the spec does not define', () => {
    const found = diagnostics.get('stateMachineBadRow')?.join('\n');
    expect(found).toMatch(/'"999"'/);
    expect(found).toMatch(/'"payment\.ach\.teleported"'/);
  });
});
