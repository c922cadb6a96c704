// HTTP of the lookups: countries, US states and enumerations, served from the spec's own data.
import type { LookupsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { responseExample } from '../platform/spec-data.ts';

type Countries = Extract<op.ListCountriesResult, { status: 200 }>['body'];
type States = Extract<op.ListStatesResult, { status: 200 }>['body'];
type Enumerations = Extract<op.ListEnumerationsResult, { status: 200 }>['body'];

const countries = responseExample('/pay-api/v1/lookups/countries', 'get') as Countries;
const states = responseExample('/pay-api/v1/lookups/states', 'get') as States;
const enumerations = responseExample('/pay-api/v1/lookups/enumerations', 'get') as Enumerations;

export const lookupsHandlers = {
  listCountries(): Promise<op.ListCountriesResult> {
    return Promise.resolve({ status: 200, body: countries });
  },
  listStates(input: op.ListStatesInput): Promise<op.ListStatesResult> {
    const countryId = input.query.countryId;
    return Promise.resolve({ status: 200, body: countryId === undefined ? states : states.filter((s) => s.countryId === countryId) });
  },
  listEnumerations(): Promise<op.ListEnumerationsResult> {
    return Promise.resolve({ status: 200, body: enumerations });
  },
} satisfies LookupsHandlers<ServerContext>;
