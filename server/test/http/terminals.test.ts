// Payment terminals over HTTP: registration (terminal.added through the paper machine's creation row), its
// validation and the duplicate serial refusal, read and list with tenancy, every paper report from every status
// against the spec's table (events exactly where a row names one, refusals changing nothing), and the sandbox
// control's 404 on a production server.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalPaperStateMachine } from '@pgw/client/state-machines';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const TERMINALS = '/pay-api/v1/terminals';
const paperPath = (id: string): string => `/sandbox/v1/terminals/${id}/paper-status`;
const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const STATUSES = ['Ok', 'Low', 'Empty'] as const;
type Paper = (typeof STATUSES)[number];

interface Terminal { terminalId: string; serialNumber: string; model: string; name: string | null; paperStatus: Paper; createdOn: string; lastSeenAt: string | null }
interface Page { items: Terminal[]; total: number }

const serial = (): string => `px7-${crypto.randomUUID().slice(0, 8)}`;
const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];

describe.each(engines())('terminals (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  /** The merchant's terminals and its terminal events: what a refused request must leave as it was. */
  async function state(i: 0 | 1): Promise<string> {
    const rows = await s.db('terminals').where({ merchant_id: s.merchantId(i) }).orderBy('id').select('*');
    const events = await s.db('outbox_events').where({ merchant_id: s.merchantId(i) }).whereIn('type', ['terminal.added', 'terminal.out_of_paper']).orderBy('id').select('id');
    return JSON.stringify([rows, events]);
  }

  /** The data of the merchant's events of a type about one terminal. */
  async function eventsOf(type: string, terminalId: string): Promise<Terminal[]> {
    const rows = await s.db('outbox_events').where({ type }).select<{ payload: string }[]>('payload');
    return rows.map((r) => JSON.parse(r.payload) as Terminal).filter((t) => t.terminalId === terminalId);
  }

  async function register(i: 0 | 1, body: object = { serialNumber: serial(), model: 'PX7', name: 'Front counter' }): Promise<Terminal> {
    const res = await request(s.app).post(TERMINALS).set(await s.as(i)).send(body);
    expect(res.status, res.text).toBe(200);
    return res.body as Terminal;
  }

  async function read(i: 0 | 1, id: string): Promise<Terminal> {
    const res = await request(s.app).get(`${TERMINALS}/${id}`).set(await s.as(i));
    expect(res.status, res.text).toBe(200);
    return res.body as Terminal;
  }

  const report = async (i: 0 | 1, id: string, paperStatus: unknown): Promise<request.Response> =>
    request(s.app).post(paperPath(id)).set(await s.as(i)).send({ paperStatus });

  describe('registration', () => {
    it('registers with a full roll, never seen, the serial in capitals, and emits terminal.added once with the terminal as read', async () => {
      const before = s.clock.now().getTime();
      const made = await register(0, { serialNumber: 'ab12-Cd34', model: 'PX7', name: 'Front counter' });
      expect(made).toEqual({
        terminalId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, serialNumber: 'AB12-CD34', model: 'PX7', name: 'Front counter',
        paperStatus: 'Ok', createdOn: expect.any(String) as string, lastSeenAt: null,
      });
      expect(Date.parse(made.createdOn)).toBeGreaterThanOrEqual(before - 1000);
      expect(await read(0, made.terminalId)).toEqual(made);
      expect(await eventsOf('terminal.added', made.terminalId)).toEqual([made]);
      expect(await eventsOf('terminal.out_of_paper', made.terminalId)).toEqual([]);
    });

    it('takes a name of null or none, and a partner acting for the merchant registers for that merchant', async () => {
      expect((await register(0, { serialNumber: serial(), model: 'M1', name: null })).name).toBeNull();
      expect((await register(0, { serialNumber: serial(), model: 'M1' })).name).toBeNull();
      const res = await request(s.app).post(TERMINALS).set(await s.as('partner', 1)).send({ serialNumber: serial(), model: 'M1' });
      expect(res.status, res.text).toBe(200);
      expect((await s.db('terminals').where({ id: (res.body as Terminal).terminalId }).first() as { merchant_id: string }).merchant_id).toBe(s.merchantId(1));
    });

    it('refuses a serial number the merchant has, in any letter case, with 400 duplicate_terminal_serial and changes nothing; another merchant may have it', async () => {
      const taken = serial();
      await register(0, { serialNumber: taken, model: 'PX7' });
      for (const again of [taken, taken.toUpperCase(), taken.toLowerCase()]) {
        const before = await state(0);
        const res = await request(s.app).post(TERMINALS).set(await s.as(0)).send({ serialNumber: again, model: 'Other', name: 'dup' });
        expect(errorOf(res)).toEqual([400, 'duplicate_terminal_serial']);
        expect(await state(0)).toBe(before);
      }
      expect((await register(1, { serialNumber: taken, model: 'PX7' })).serialNumber).toBe(taken.toUpperCase());
    });

    it('refuses concurrent registrations of one serial number but one', async () => {
      const taken = serial();
      const h = await s.as(0);
      const answers = await Promise.all([0, 1, 2, 3].map(() => request(s.app).post(TERMINALS).set(h).send({ serialNumber: taken, model: 'PX7' })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
      expect(await s.db('terminals').where({ merchant_id: s.merchantId(0), serial_number: taken.toUpperCase() })).toHaveLength(1);
    });

    it.each([
      ['a serial number too short', { serialNumber: 'AB1', model: 'PX7' }, ['serialNumber']],
      ['a serial number too long', { serialNumber: 'A'.repeat(41), model: 'PX7' }, ['serialNumber']],
      ['a serial number with a space', { serialNumber: 'PX7 2041', model: 'PX7' }, ['serialNumber']],
      ['a serial number with a leading dash', { serialNumber: '-PX72041', model: 'PX7' }, ['serialNumber']],
      ['a serial number of other letters', { serialNumber: 'PX7-ÄÖ12', model: 'PX7' }, ['serialNumber']],
      ['no serial number', { model: 'PX7' }, ['serialNumber']],
      ['no model', { serialNumber: 'PX7-2041' }, ['model']],
      ['a blank model', { serialNumber: 'PX7-2041', model: '   ' }, ['model']],
      ['a model too long', { serialNumber: 'PX7-2041', model: 'M'.repeat(41) }, ['model']],
      ['a name too long', { serialNumber: 'PX7-2041', model: 'PX7', name: 'N'.repeat(81) }, ['name']],
    ])('refuses %s with 400 validation_failed naming the field, and changes nothing', async (_what, body, fields) => {
      const before = await state(0);
      const res = await request(s.app).post(TERMINALS).set(await s.as(0)).send(body);
      expect(errorOf(res)).toEqual([400, 'validation_failed']);
      expect(fieldsOf(res.body)).toEqual(fields);
      expect(await state(0)).toBe(before);
    });

    it('refuses a value of the wrong type with the documented alternative 400 body naming it, and changes nothing', async () => {
      const before = await state(0);
      for (const [body, path] of [[{ serialNumber: 12345678, model: 'PX7' }, 'serialNumber'], [{ serialNumber: 'PX7-2041', model: ['PX7'] }, 'model']] as const) {
        const res = await request(s.app).post(TERMINALS).set(await s.as(0)).send(body);
        expect(res.status).toBe(400);
        expect(Object.keys((res.body as { errors: Record<string, unknown> }).errors).join()).toContain(path);
      }
      expect(await state(0)).toBe(before);
    });
  });

  describe('read and list', () => {
    it("answers 404 for an unknown id and for another merchant's terminal, and 400 for an id that is no UUID", async () => {
      const theirs = await register(1);
      for (const id of [UNKNOWN, theirs.terminalId]) {
        expect(errorOf(await request(s.app).get(`${TERMINALS}/${id}`).set(await s.as(0)))).toEqual([404, 'not_found']);
      }
      expect(errorOf(await request(s.app).get(`${TERMINALS}/not-a-uuid`).set(await s.as(0)))).toEqual([400, 'validation_failed']);
      expect((await read(0, (await register(0)).terminalId.toUpperCase())).serialNumber).toMatch(/^PX7-/);
    });

    it("lists the merchant's own terminals only, paged, searched, ordered and filtered by paper status", async () => {
      const tag = crypto.randomUUID().slice(0, 6);
      const mine = [];
      for (const [k, name] of ['Bar', 'Annex', 'Cellar'].entries()) mine.push(await register(0, { serialNumber: `${tag}-${String(k)}000`, model: `Model-${tag}`, name }));
      const theirs = await register(1, { serialNumber: `${tag}-9000`, model: `Model-${tag}` });
      const list = async (i: 0 | 1, query: Record<string, string | number | boolean>): Promise<Page> => {
        const res = await request(s.app).get(TERMINALS).set(await s.as(i)).query(query);
        expect(res.status, res.text).toBe(200);
        return res.body as Page;
      };
      const searched = await list(0, { search: tag, orderBy: 'name', asc: true, pageSize: 100 });
      expect(searched.total).toBe(3);
      expect(searched.items.map((t) => t.name)).toEqual(['Annex', 'Bar', 'Cellar']);
      expect(JSON.stringify(searched)).not.toContain(theirs.terminalId);
      const paged = await list(0, { search: tag, orderBy: 'serialNumber', asc: false, pageSize: 2, page: 1 });
      expect([paged.total, paged.items.map((t) => t.terminalId)]).toEqual([3, [mine[0]?.terminalId]]);
      expect((await list(0, { search: `model-${tag}`, pageSize: 100 })).total).toBe(3);
      expect((await report(0, mine[1]?.terminalId ?? '', 'Empty')).status).toBe(200);
      const empty = await list(0, { search: tag, paperStatus: 'Empty' });
      expect(empty.items.map((t) => t.terminalId)).toEqual([mine[1]?.terminalId]);
      expect((await list(0, { search: tag, paperStatus: 'Ok' })).total).toBe(2);
      expect((await list(0, { search: tag, dateTo: '2000-01-01T00:00:00Z' })).total).toBe(0);
      expect((await list(1, { search: tag })).items.map((t) => t.terminalId)).toEqual([theirs.terminalId]);
      for (const query of [{ paperStatus: 'Full' }, { orderBy: 'model' }, { pageSize: 0 }]) {
        expect(errorOf(await request(s.app).get(TERMINALS).set(await s.as(0)).query(query))).toEqual([400, 'validation_failed']);
      }
    });
  });

  describe('paper reports (the TerminalPaperStatus machine)', () => {
    const rows = terminalPaperStateMachine.transitions.filter((r) => r.trigger === 'setSandboxTerminalPaperStatus');
    const rowFor = (from: Paper, to: Paper) => rows.find((r) => r.from === from && r.to === to);

    it('is the table this test expects: Empty cannot go to Low, and only a move to Empty emits', () => {
      const table = STATUSES.flatMap((from) => STATUSES.map((to) => `${from}>${to}:${rowFor(from, to) ? String(rowFor(from, to)?.event) : 'refused'}`));
      expect(table).toEqual([
        'Ok>Ok:null', 'Ok>Low:null', 'Ok>Empty:terminal.out_of_paper',
        'Low>Ok:null', 'Low>Low:null', 'Low>Empty:terminal.out_of_paper',
        'Empty>Ok:null', 'Empty>Low:refused', 'Empty>Empty:null',
      ]);
    });

    /** A new terminal whose paper is in `status`, reached by reports the table permits. */
    async function terminalIn(status: Paper): Promise<Terminal> {
      const made = await register(0);
      if (status !== 'Ok') expect((await report(0, made.terminalId, status)).status).toBe(200);
      return read(0, made.terminalId);
    }

    it.each(STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const)))('%s reported %s: moves, stamps and emits as the table says', async (from, to) => {
      const terminal = await terminalIn(from);
      const row = rowFor(from, to);
      const before = await state(0);
      const eventsBefore = (await eventsOf('terminal.out_of_paper', terminal.terminalId)).length;
      s.clock.advance(60);
      const res = await report(0, terminal.terminalId, to);
      const after = await read(0, terminal.terminalId);
      const emitted = (await eventsOf('terminal.out_of_paper', terminal.terminalId)).slice(eventsBefore);
      if (row === undefined) {
        expect(errorOf(res)).toEqual([400, 'terminal_paper_change_not_allowed']);
        expect((res.body as ErrorBody).entityId).toBe(terminal.terminalId);
        expect(after).toEqual(terminal);
        expect(await state(0)).toBe(before);
        return;
      }
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(after);
      expect(after).toEqual({ ...terminal, paperStatus: to, lastSeenAt: expect.any(String) as string });
      expect(Date.parse(after.lastSeenAt ?? '')).toBeGreaterThan(Date.parse(terminal.lastSeenAt ?? terminal.createdOn));
      expect(emitted).toEqual(row.event === null ? [] : [after]);
      expect(await eventsOf('terminal.added', terminal.terminalId)).toHaveLength(1);
    });

    it("answers 404 for an unknown terminal and another merchant's, and 400 for a status not in the enumeration, changing nothing", async () => {
      const theirs = await register(1);
      const before = [await state(0), await state(1)];
      for (const id of [UNKNOWN, theirs.terminalId]) expect(errorOf(await report(0, id, 'Empty'))).toEqual([404, 'not_found']);
      const mine = await register(0);
      const withMine = [await state(0), await state(1)];
      for (const bad of ['Full', 'empty']) expect(errorOf(await report(0, mine.terminalId, bad))).toEqual([400, 'validation_failed']);
      // A value of another type answers the alternative 400 body (ValidationProblemDetails).
      for (const bad of [null, 3]) expect((await report(0, mine.terminalId, bad)).status).toBe(400);
      expect(errorOf(await request(s.app).post(paperPath(mine.terminalId)).set(await s.as(0)).send({}))).toEqual([400, 'validation_failed']);
      expect([await state(0), await state(1)]).toEqual(withMine);
      expect(withMine[1]).toBe(before[1]);
      expect((await read(1, theirs.terminalId)).paperStatus).toBe('Ok');
    });
  });
});

describe.each(engines())('terminals on a production server (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine, { environment: 'production' }); });
  afterAll(async () => { await s.close(); });

  it('registers terminals, but the sandbox paper control answers 404 route_not_found with or without a token', async () => {
    const res = await request(s.app).post(TERMINALS).set(await s.as(0)).send({ serialNumber: serial(), model: 'PX7' });
    expect(res.status, res.text).toBe(200);
    const id = (res.body as Terminal).terminalId;
    for (const headers of [{}, await s.as(0)]) {
      const control = await request(s.app).post(paperPath(id)).set(headers).send({ paperStatus: 'Empty' });
      expect(errorOf(control)).toEqual([404, 'route_not_found']);
    }
    expect((await request(s.app).get(`${TERMINALS}/${id}`).set(await s.as(0)).expect(200)).body).toMatchObject({ paperStatus: 'Ok', lastSeenAt: null });
  });
});
