// Checks on the records of each resource family: errors, availability, pagination, tenancy, idempotency.
import { bodyOf, CheckFailure, createdId, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { markers, resources, type Resource } from '../resources.ts';

const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

async function create(ctx: CheckContext, r: Resource, marker: string, as = 'A', headers: Record<string, string> = {}): Promise<string> {
  return createdId(await ctx.call(r.create, { body: r.body(ctx, marker), as, headers }), r.name);
}

function items(exchange: Exchange): Record<string, unknown>[] {
  const list = bodyOf(exchange).items;
  return Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
}

/** The records of a list whose searchable field carries the marker stem, walking every page. */
async function walk(ctx: CheckContext, r: Resource, search: string, pageSize: number): Promise<{ ids: string[]; totals: number[]; pages: number }> {
  if (!r.list) throw new Error('no list');
  const ids: string[] = [];
  const totals: number[] = [];
  for (let page = 0; page < 100; page++) {
    const res = await ctx.call(r.list.operation, { query: { search, pageSize, page, orderBy: r.list.orderBy, asc: true } });
    expectStatus(res, 200, `page ${String(page)} of ${r.list.operation}`);
    totals.push(Number(bodyOf(res).total));
    const found = items(res).map((i) => String(i.id));
    if (found.length === 0) return { ids, totals, pages: page };
    ids.push(...found);
  }
  throw new CheckFailure(`${r.list.operation} never reached an empty page`);
}

/** The record reads back (or lists) with the id it was given and the marker it was written with. */
async function expectFound(ctx: CheckContext, r: Resource, id: string, marker: string): Promise<void> {
  const field = r.list?.searchable ?? r.requiredField;
  if (r.read) {
    const res = await ctx.call(r.read, { path: { [r.idParam]: id } });
    expectStatus(res, 200, `${r.read} of the new ${r.name}`);
    expectThat(bodyOf(res).id === id && bodyOf(res)[field] === marker, `${r.read} returns the ${r.name} as written (id and ${field})`, res);
  } else if (r.list) {
    const res = await ctx.call(r.list.operation, { query: { search: marker } });
    expectThat(items(res).some((i) => i.id === id && i[field] === marker), `${r.list.operation} finds the new ${r.name} as written`, res);
  }
}

const perResource = (make: (r: Resource) => Check | undefined): Check[] => resources.map(make).filter((c): c is Check => c !== undefined);

export const resourceChecks: Check[] = [
  ...perResource((r) => ({
    id: `errors/missing_required_field:${r.create}`, group: 'errors', tags: [r.tag], designed: false,
    title: `${r.create} without ${r.requiredField} answers 400 naming the field`,
    async run(ctx) {
      const body = Object.fromEntries(Object.entries(r.body(ctx, ctx.unique('missing'))).filter(([key]) => key !== r.requiredField));
      const res = await ctx.call(r.create, { body });
      expectStatus(res, 400, `${r.create} without ${r.requiredField}`);
      const errors = bodyOf(res).errors;
      expectThat(typeof errors === 'object' && errors !== null && Object.keys(errors).some((k) => k === r.requiredField || k.endsWith(`.${r.requiredField}`)),
        `the 400 body's errors name ${r.requiredField}`, res);
    },
  })),
  ...perResource((r) => r.numberField === undefined ? undefined : ({
    id: `errors/wrong_json_type:${r.create}`, group: 'errors', tags: [r.tag], designed: false,
    title: `${r.create} with a string where ${r.numberField} takes a number answers the alternative 400 body`,
    async run(ctx) {
      const res = await ctx.call(r.create, { body: { ...r.body(ctx, ctx.unique('type')), [String(r.numberField)]: 'twelve' } });
      expectStatus(res, 400, 'a JSON value of the wrong type');
      const body = bodyOf(res);
      expectThat(body.status === 400 && typeof body.traceId === 'string' && typeof body.title === 'string' && typeof body.errors === 'object',
        'the alternative body (type, title, status, traceId, errors)', res);
      expectThat(Object.keys(body.errors as object).some((k) => k.includes(String(r.numberField))), `errors names the JSON path of ${String(r.numberField)}`, res);
    },
  })),
  ...perResource((r) => ({
    id: `errors/unknown_id:${r.name}`, group: 'errors', tags: [r.tag], designed: false,
    title: `Reading, changing or deleting an unknown ${r.name} answers 404 with the standard body`,
    async run(ctx) {
      for (const op of [r.read, r.update, r.delete]) {
        if (op === undefined) continue;
        const res = await ctx.call(op, { path: { [r.idParam]: UNKNOWN }, ...(op === r.update ? { body: r.body(ctx, ctx.unique('u')) } : {}) });
        expectStatus(res, 404, `${op} of an unknown id`);
        expectThat(bodyOf(res).statusCode === 404 && typeof bodyOf(res).correlationId === 'string', 'the standard error body', res);
      }
    },
  })),
  ...perResource((r) => ({
    id: `resources/ensure_resource_availability:${r.name}`, group: 'resources', tags: [r.tag], designed: false,
    title: `A created ${r.name} can be found again, as it was written`,
    async run(ctx) {
      const [marker = ''] = markers(ctx, 1);
      const id = await create(ctx, r, marker);
      await expectFound(ctx, r, id, marker);
    },
  })),
  ...perResource(({ delete: remove, ...r }) => remove === undefined ? undefined : ({
    id: `resources/use_after_free:${r.name}`, group: 'resources', tags: [r.tag], designed: false,
    title: `A deleted ${r.name} is gone`,
    async run(ctx) {
      const [marker = ''] = markers(ctx, 1);
      const id = await create(ctx, r, marker);
      await expectFound(ctx, r, id, marker);
      expectStatus(await ctx.call(remove, { path: { [r.idParam]: id } }), 200, remove);
      if (r.read) expectStatus(await ctx.call(r.read, { path: { [r.idParam]: id } }), 404, `${r.read} after delete`);
      if (r.list) {
        const res = await ctx.call(r.list.operation, { query: { search: marker } });
        expectThat(!items(res).some((i) => i.id === id), `${r.list.operation} no longer lists the deleted ${r.name}`, res);
      }
    },
  })),
  ...perResource((r) => r.list === undefined ? undefined : ({
    id: `pagination/pages:${r.list.operation}`, group: 'pagination', tags: [r.tag], designed: false,
    title: `${r.list.operation}: default page size 15, pageSize, a page past the end, every page without gaps or duplicates, order, search`,
    async run(ctx) {
      const list = r.list;
      if (!list) return;
      const names = markers(ctx, 17);
      const stem = names[0]?.slice(0, -4) ?? '';
      const created: string[] = [];
      for (const name of [...names].reverse()) created.push(await create(ctx, r, name));
      const first = await ctx.call(list.operation, { query: { search: stem } });
      expectStatus(first, 200, list.operation);
      expectThat(bodyOf(first).total === 17, `search narrows the list to the 17 records made (total ${String(bodyOf(first).total)})`, first);
      expectThat(items(first).length === 15, `the default page size is 15 (got ${String(items(first).length)})`, first);
      const sized = await ctx.call(list.operation, { query: { search: stem, pageSize: 5 } });
      expectThat(items(sized).length === 5, 'pageSize is honoured', sized);
      const past = await ctx.call(list.operation, { query: { search: stem, page: 50 } });
      expectStatus(past, 200, 'a page past the end');
      expectThat(items(past).length === 0 && bodyOf(past).total === 17, 'a page past the end is empty, with the same total', past);
      const { ids, totals } = await walk(ctx, r, stem, 4);
      expectThat(new Set(ids).size === ids.length, `walking the pages gives no duplicate (${String(ids.length - new Set(ids).size)} duplicated)`);
      expectThat(ids.length === 17 && created.every((id) => ids.includes(id)), `walking the pages gives every record once (${String(ids.length)} of 17)`);
      expectThat(totals.every((t) => t === 17), `every page reports total 17 (${totals.join(', ')})`);
      for (const asc of [true, false]) {
        const res = await ctx.call(list.operation, { query: { search: stem, orderBy: list.orderBy, asc, pageSize: 17 } });
        const values = items(res).map((i) => String(i[list.orderField]));
        const sorted = [...values].sort();
        if (!asc) sorted.reverse();
        expectThat(JSON.stringify(values) === JSON.stringify(sorted), `orderBy=${list.orderBy}&asc=${String(asc)} orders the items`, res);
      }
    },
  })),
  ...perResource((r) => ({
    id: `tenancy/other_merchant:${r.name}`, group: 'tenancy', tags: [r.tag], designed: true,
    title: `Merchant B reading, changing or deleting merchant A's ${r.name} gets 404, and the record is unchanged`,
    async run(ctx) {
      const [marker = ''] = markers(ctx, 1);
      const id = await create(ctx, r, marker, 'A');
      for (const op of [r.read, r.update, r.delete]) {
        if (op === undefined) continue;
        const res = await ctx.call(op, { as: 'B', path: { [r.idParam]: id }, ...(op === r.update ? { body: r.body(ctx, `${marker}-b`) } : {}) });
        expectStatus(res, 404, `${op} with merchant B's token`);
      }
      if (r.list) {
        const foreign = await ctx.call(r.list.operation, { as: 'B', query: { search: marker } });
        expectThat(!items(foreign).some((i) => i.id === id), `merchant B's ${r.list.operation} does not list merchant A's ${r.name}`, foreign);
        const own = await ctx.call(r.list.operation, { query: { search: marker } });
        const mine = items(own).find((i) => i.id === id);
        expectThat(mine !== undefined && mine[r.list.searchable] === marker, `merchant A's ${r.name} is still there, unchanged`, own);
      } else if (r.read) {
        expectStatus(await ctx.call(r.read, { path: { [r.idParam]: id } }), 200, 'merchant A still reads its record');
      }
    },
  })),
  ...perResource((r) => ({
    id: `idempotency/replay:${r.create}`, group: 'idempotency', tags: [r.tag], designed: true,
    title: `${r.create} with the same Idempotency-Key: the same record, replayed; another body: 422; concurrent duplicates act once`,
    async run(ctx) {
      const [marker = ''] = markers(ctx, 1);
      const key = ctx.unique('idem');
      const body = r.body(ctx, marker);
      const first = await ctx.call(r.create, { body, headers: { 'Idempotency-Key': key } });
      const second = await ctx.call(r.create, { body, headers: { 'Idempotency-Key': key } });
      const id = createdId(first, r.name);
      expectThat(createdId(second, r.name) === id, 'the replay answers the same record', second);
      expectThat(second.response?.headers['idempotent-replayed'] === 'true', 'the replay says Idempotent-Replayed: true', second);
      const other = await ctx.call(r.create, { body: r.body(ctx, `${marker}-other`), headers: { 'Idempotency-Key': key } });
      expectStatus(other, 422, 'the same key with another body');
      const raceKey = ctx.unique('race');
      const [raceMarker = ''] = markers(ctx, 1);
      const raceBody = r.body(ctx, raceMarker);
      const raced = await Promise.all(Array.from({ length: 4 }, () => ctx.call(r.create, { body: raceBody, headers: { 'Idempotency-Key': raceKey } })));
      for (const res of raced) expectStatus(res, [200, 201, 409], 'a concurrent duplicate');
      const ids = new Set(raced.filter((res) => res.response?.status !== 409).map((res) => String(bodyOf(res).id)));
      expectThat(ids.size === 1, `concurrent duplicates create one record (${String(ids.size)} ids)`);
      if (r.list) {
        const listed = await ctx.call(r.list.operation, { query: { search: raceMarker } });
        expectThat(bodyOf(listed).total === 1, `one record exists for the raced key (total ${String(bodyOf(listed).total)})`, listed);
      }
    },
  })),
];
