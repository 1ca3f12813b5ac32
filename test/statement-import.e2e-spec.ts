import { readFileSync } from 'node:fs';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { BANK_LINK_SYNC_INTERVAL_MINUTES: '0' } });
}, 180_000);
afterAll(() => t.close(), 180_000);

const fixture = (name: string) => readFileSync(new URL(`./fixtures/statements/${name}`, import.meta.url));
const CSV = 'text/csv';
const OFX = 'application/x-ofx';

interface Import {
  id: string;
  accountId: string;
  status: string;
  format: string;
  totalRows: number;
  imported: number;
  duplicates: number;
  failed: number;
  failedRows: Array<{ row: number; message: string }>;
}

interface Listed {
  id: string;
  accountId: string;
  name: string;
  amount: number;
  date: string;
  notes: string | null;
}

const upload = (key: string, accountId: string, body: Buffer | string, type: string, query = '') => t.as(key).post(`/v1/accounts/${accountId}/imports${query}`, Buffer.from(body)).set('Content-Type', type);

/** Uploads, waits for the job and answers the import as GET /imports/{id} then has it. */
async function imported(key: string, accountId: string, body: Buffer | string, type: string, query = ''): Promise<Import> {
  const queued = (await upload(key, accountId, body, type, query).expect(202)).body as Import;
  expect(queued).toMatchObject({ accountId, status: 'queued', imported: 0 });
  await t.settle();
  const done = (await t.as(key).get(`/v1/imports/${queued.id}`).expect(200)).body as Import;
  expect(done.status).toBe('completed');
  return done;
}

const listed = async (key: string, accountId: string) => ((await t.as(key).get(`/v1/transactions?accountId=${accountId}&limit=500`).expect(200)).body.transactions as Listed[]).sort((a, b) => a.date.localeCompare(b.date) || a.name.localeCompare(b.name));

describe('statement import', () => {
  it('imports a US bank CSV, and imports nothing when the same statement comes again', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const first = await imported(key, accountId, fixture('us-bank.csv'), CSV);
    expect(first).toMatchObject({ format: 'csv', totalRows: 10, imported: 10, duplicates: 0, failed: 0, failedRows: [] });
    const rows = await listed(key, accountId);
    expect(rows.filter((row) => row.name !== 'Checking')).toHaveLength(10);
    expect(rows.find((row) => row.name === 'STARBUCKS STORE #1234, SEATTLE WA')).toMatchObject({ amount: -5.75, date: '2026-11-02', notes: null });
    expect(rows.filter((row) => row.name === 'SHELL OIL 57442').map((row) => row.amount)).toEqual([-42.1, -42.1]);
    expect(rows.filter((row) => row.name === 'ACME CORP PAYROLL').map((row) => [row.date, row.amount, row.notes])).toEqual([
      ['2026-11-03', 2450, 'Direct deposit'],
      ['2026-11-17', 2450, 'Direct deposit'],
    ]);

    const again = await imported(key, accountId, fixture('us-bank.csv'), CSV);
    expect(again).toMatchObject({ totalRows: 10, imported: 0, duplicates: 10 });
    expect(await listed(key, accountId)).toEqual(rows);
  }, 60_000);

  it('imports a European CSV (`;`, DD/MM/YYYY, decimal commas, Debit/Credit), an OFX 1.x SGML and an OFX 2.x XML file', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    expect(await imported(key, accountId, fixture('european-bank.csv'), 'text/csv; charset=utf-8')).toMatchObject({ imported: 7, failed: 0 });
    expect(await imported(key, accountId, fixture('checking-1x.ofx'), OFX)).toMatchObject({ format: 'ofx', totalRows: 6, imported: 6 });
    expect(await imported(key, accountId, fixture('credit-card-2x.ofx'), 'application/vnd.intu.qfx')).toMatchObject({ format: 'ofx', imported: 4 });
    const byName = new Map((await listed(key, accountId)).map((row) => [row.name, row]));
    expect(byName.get('SNCF Voyageurs')).toMatchObject({ date: '2026-11-05', amount: -1120.5, notes: 'Billets Paris - Lyon' });
    expect(byName.get('Salaire Novembre ACME SA')).toMatchObject({ date: '2026-11-03', amount: 3250 });
    expect(byName.get('CAFÉ RÉSISTANCE & BAR')).toMatchObject({ date: '2026-11-05', amount: -18.25 });
    expect(byName.get('ACME CORP PAYROLL')).toMatchObject({ date: '2026-11-03', amount: 2450, notes: 'DIRECT DEP' });
    expect(byName.get("TRADER JOE'S #552")).toMatchObject({ date: '2026-11-04', amount: -52.37, notes: 'GROCERIES' });
    // The OFX file again: its FITIDs are there already.
    expect(await imported(key, accountId, fixture('checking-1x.ofx'), OFX)).toMatchObject({ imported: 0, duplicates: 6 });
  }, 60_000);

  it('shows an import failed, with the error, once its job has used up its retries', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const done = await imported(key, accountId, 'Date,Description,Amount\n2026-11-01,Coffee,-3.50\n', CSV);
    // As the outbox records a job whose retries are used up (decision 0038) while its import had not finished.
    await t.runtime.database.pool.query("UPDATE statement_imports SET status = 'running', completed_at = NULL WHERE id = $1", [done.id]);
    await t.runtime.database.pool.query(
      "INSERT INTO job_outbox (job_id, name, input, run_at, cause, created_at, failed_at, last_error) VALUES ($1, 'statement-import', '{}', now(), '{}', now(), now(), 'connection terminated')",
      [`statement-import-${done.id}`],
    );
    expect((await t.as(key).get(`/v1/imports/${done.id}`).expect(200)).body).toMatchObject({ status: 'failed', error: expect.stringContaining('connection terminated') });
  }, 60_000);

  it('lists a bad row with its row number and imports the good ones', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const done = await imported(key, accountId, 'Date,Description,Amount\n2026-11-01,Coffee,-3.50\n2026-11-31,Bad day,-1\n2026-11-02,Tea,-2\n', CSV);
    expect(done).toMatchObject({ totalRows: 3, imported: 2, failed: 1, failedRows: [{ row: 3, message: expect.stringContaining('2026-11-31') }] });
  }, 60_000);

  it('writes nothing on a dry run, and counts what an import would make', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const before = await listed(key, accountId);
    const dry = (await upload(key, accountId, fixture('us-bank.csv'), CSV, '?dryRun=true').expect(200)).body as Import;
    expect(dry).toMatchObject({ status: 'completed', totalRows: 10, imported: 10, duplicates: 0 });
    await t.settle();
    expect(await listed(key, accountId)).toEqual(before);
    await t.as(key).get(`/v1/imports/${dry.id}`).expect(404);
    await imported(key, accountId, fixture('us-bank.csv'), CSV);
    expect((await upload(key, accountId, fixture('us-bank.csv'), CSV, '?dryRun=true').expect(200)).body).toMatchObject({ imported: 0, duplicates: 10 });
  }, 60_000);

  it('shows actor system and the import id in the activity of an imported transaction', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const done = await imported(key, accountId, fixture('credit-card-2x.ofx'), OFX);
    const transaction = (await listed(key, accountId)).find((row) => row.name === 'SPOTIFY USA') as Listed;
    const events = (await t.as(key).get(`/v1/transactions/${transaction.id}/activity`).expect(200)).body.events as Array<{ actor: string; requestId: string }>;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event).toMatchObject({ actor: 'system', requestId: `import-${done.id}` });
  }, 60_000);

  it('refuses a bank-linked account (400 ACCOUNT_NOT_MANUAL), an unreadable file (422 with its line), an unknown column (422), another type (415)', async () => {
    const user = await t.newUserWithAccount();
    const { publicToken } = (await t.as(user.key).post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body as { publicToken: string };
    await t.as(user.key).post('/v1/link/items', { publicToken }).expect(201);
    await t.settle();
    const accounts = (await t.as(user.key).get('/v1/accounts').expect(200)).body.accounts as Array<{ id: string; source: string }>;
    const linked = accounts.find((account) => account.source === 'bank_link') as { id: string };
    expect((await upload(user.key, linked.id, fixture('us-bank.csv'), CSV).expect(400)).body).toEqual({ code: 'ACCOUNT_NOT_MANUAL', error: expect.any(String) });

    const unreadable = (await upload(user.key, user.accountId, 'Date,Description,Amount\n2026-11-01,"never closed,1\n', CSV).expect(422)).body;
    expect(unreadable.error.issues[0]).toMatchObject({ path: ['body', 'line', expect.any(Number)] });
    expect((await upload(user.key, user.accountId, 'no header here\n1,2\n', CSV).expect(422)).body.error.issues[0].path).toEqual(['body', 'line', 1]);
    expect((await upload(user.key, user.accountId, '<html>not ofx</html>', OFX).expect(422)).body.error.issues[0].path).toEqual(['body', 'line', 1]);
    expect((await upload(user.key, user.accountId, fixture('us-bank.csv'), CSV, '?notesColumn=Remarks').expect(422)).body.error.issues[0].path).toEqual(['notesColumn']);
    expect((await t.as(user.key).post(`/v1/accounts/${user.accountId}/imports`, { file: 'x' }).expect(415)).body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', error: expect.any(String) });
    await upload(user.key, user.accountId, 'x', 'application/pdf').expect(415);
  }, 90_000);

  it('answers 413 to a file over 10 MB, and reads one of exactly 10 MB', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const limit = 10 * 1024 * 1024;
    // One row, then blank lines (of spaces) up to the limit: read to its end, quickly.
    const body = Buffer.alloc(limit, ' ');
    for (let offset = 1023; offset < limit; offset += 1024) body[offset] = 0x0a;
    body.write('Date,Description,Amount\n2026-11-01,Filler,-1\n');
    const tooBig = Buffer.concat([body, Buffer.from('\n')]);
    expect((await upload(key, accountId, tooBig, CSV, '?dryRun=true').expect(413)).body).toEqual({ code: 'PAYLOAD_TOO_LARGE', error: 'The request body is larger than 10 MB.' });
    expect((await upload(key, accountId, body, CSV, '?dryRun=true').expect(200)).body).toMatchObject({ totalRows: 1, imported: 1 });
  }, 120_000);

  it("answers 404 to another user's account and import", async () => {
    const owner = await t.newUserWithAccount();
    const other = await t.newUserWithAccount();
    const done = await imported(owner.key, owner.accountId, fixture('credit-card-2x.ofx'), OFX);
    await upload(other.key, owner.accountId, fixture('credit-card-2x.ofx'), OFX).expect(404);
    await t.as(other.key).get(`/v1/imports/${done.id}`).expect(404);
    await request(t.server).get(`/v1/imports/${done.id}`).expect(401);
  }, 60_000);
});
