import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { PostgresEventLog } from '../src/infrastructure/event-store/postgres-event-log.js';
import { backfillChain } from '../src/infrastructure/event-store/postgres-chain-backfill.js';
import { chainBackfillCommand } from '../src/modules/audit/chain/chain-backfill.command.js';
import { verifyChainCommand } from '../src/modules/audit/chain/verify-chain.command.js';
import { ensureBuiltService } from './support/built-service.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let accountId: string;
/** Transactions of three events each (created, edited twice). */
const transactions: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  ({ key, accountId } = await t.newUserWithAccount());
  const tag = (await t.as(key).post('/v1/tags', { name: 'Audit', color: 'blue' }).expect(201)).body.id;
  for (let index = 0; index < 5; index += 1) {
    const id = (await t.as(key).post('/v1/transactions', { accountId, amount: -(index + 1), date: '2026-11-20', name: `Shop ${index}` }).expect(201)).body.id as string;
    await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'first' }).expect(200);
    await t.as(key).put(`/v1/transactions/${id}/tags`, { tagIds: [tag] }).expect(200);
    transactions.push(id);
  }
  // Streams created many at once (a statement import) and by a bank-link sync.
  const statement = Buffer.from('Date,Description,Amount\n2026-11-18,Groceries,-42.10\n2026-11-19,Refund,5.00\n');
  await t.as(key).post(`/v1/accounts/${accountId}/imports`, statement).set('Content-Type', 'text/csv').expect(202);
  const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100002' }).expect(200)).body;
  await t.as(key).post('/v1/link/items', { publicToken }).expect(201);
  await t.settle();
}, 180_000);
afterAll(() => t.close());

/** `ledgerline audit verify --chain` as the command runs it, its output captured (the progress bar apart). */
async function verify(json = false): Promise<{ code: number; stdout: string; progress: string }> {
  const lines: string[] = [];
  const progress: string[] = [];
  const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const code = await verifyChainCommand(new PostgresEventLog(t.runtime.database.pool), { json }, out, { write: (text: string) => progress.push(text) });
  return { code, stdout: lines.join('\n'), progress: progress.join('') };
}

/** Runs SQL as someone with the database's keys would: triggers off (a superuser's `session_replication_role`). */
async function behindTheServicesBack(statements: (query: (text: string, values?: unknown[]) => Promise<unknown>) => Promise<void>): Promise<void> {
  const client = await t.runtime.database.pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    await statements((text, values) => client.query(text, values));
  } finally {
    await client.query('SET session_replication_role = DEFAULT');
    client.release();
  }
}

const streamOf = (id: string) => `transaction-${id}`;

describe('ledgerline audit verify --chain', () => {
  it('finds every stream the service wrote intact — single appends, guarded ones, streams created many at once — with a progress bar', async () => {
    const { rows } = await sql<{ events: number; streams: number; unchained: number }>`
      SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams, count(*) FILTER (WHERE hash IS NULL)::int AS unchained FROM events`.execute(t.runtime.database.db);
    expect(rows[0].unchained).toBe(0);
    const result = await verify();
    console.log(`$ ledgerline audit verify --chain   (exit ${result.code})\n${result.progress}${result.stdout}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Chain intact: every event of ${rows[0].streams.toLocaleString('en')} streams, ${rows[0].events.toLocaleString('en')} events follows the one before it.`);
    expect(result.progress).toMatch(/^verify chain: [\d,]+\/[\d,]+ events \(100%\), done in /m);
  });

  it('chains, resumably, events stored before the chain and those appended after them, until every one follows', async () => {
    const legacy = transactions.slice(0, 2).map(streamOf);
    await behindTheServicesBack(async (query) => {
      await query('UPDATE events SET previous_hash = NULL, hash = NULL WHERE stream_id = ANY($1)', [legacy]);
    });
    // Appended after an event without a hash: it has none either, until the backfill.
    await t.as(key).patch(`/v1/transactions/${transactions[0]}`, { notes: 'after the upgrade' }).expect(200);
    const before = await verify();
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('NOT CHAINED YET: 7 events at the end of 2 streams');

    let pages = 0;
    await expect(
      backfillChain(
        t.runtime.database.pool,
        () => {
          pages += 1;
          throw new Error('killed after its first page');
        },
        2,
      ),
    ).rejects.toThrow('killed');
    expect(pages).toBe(1);
    const halfway = await verify();
    expect(halfway.stdout).toContain('NOT CHAINED YET: 5 events at the end of 2 streams');

    const lines: string[] = [];
    const progress: string[] = [];
    const code = await chainBackfillCommand(t.runtime.database, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, { write: (text: string) => progress.push(text) });
    console.log(`$ ledgerline audit chain   (exit ${code})\n${progress.join('')}${lines.join('\n')}`);
    expect([code, lines]).toEqual([0, ['Chained 5 events: every event has its hash.']]);
    expect((await verify()).code).toBe(0);
    // The service remembers that stream's head as it was, without a hash: its next append finds the head chained since, and follows it.
    await t.as(key).patch(`/v1/transactions/${transactions[0]}`, { notes: 'after the backfill' }).expect(200);
    expect((await verify()).code).toBe(0);
  });

  it('names the first event that does not follow in each stream whose event was changed, deleted, or swapped with another (exit 1)', async () => {
    const [changed, deleted, swapped] = transactions.slice(2).map(streamOf);
    await behindTheServicesBack(async (query) => {
      await query(`UPDATE events SET data = jsonb_set(data, '{changes,0,newValue}', '"rewritten"') WHERE stream_id = $1 AND stream_revision = 1`, [changed]);
      await query('DELETE FROM events WHERE stream_id = $1 AND stream_revision = 1', [deleted]);
      await query('UPDATE events SET stream_revision = -1 WHERE stream_id = $1 AND stream_revision = 1', [swapped]);
      await query('UPDATE events SET stream_revision = 1 WHERE stream_id = $1 AND stream_revision = 2', [swapped]);
      await query('UPDATE events SET stream_revision = 2 WHERE stream_id = $1 AND stream_revision = -1', [swapped]);
    });
    const result = await verify();
    console.log(`$ ledgerline audit verify --chain   (exit ${result.code})\n${result.stdout}`);
    expect(result.code).toBe(1);
    const broken = result.stdout.split('\n').filter((line) => line.startsWith('BROKEN'));
    expect(broken).toHaveLength(3);
    expect(broken).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^BROKEN ${changed} at revision 1 \\(event [0-9a-f-]{36}, TransactionEdited, position \\d+/\\d+\\): it is not what was chained`)),
        expect.stringMatching(new RegExp(`^BROKEN ${deleted} at revision 2 \\(event [0-9a-f-]{36}, TagApplied, .*\\): revision 1 before it is missing`)),
        expect.stringMatching(new RegExp(`^BROKEN ${swapped} at revision 1 \\(event [0-9a-f-]{36}, TagApplied, .*\\): it does not follow revision 0`)),
      ]),
    );
    expect(result.stdout.split('\n').at(-1)).toMatch(/^Chain BROKEN in 3 of [\d,]+ streams, [\d,]+ events: the events named were changed, removed or moved after they were written\.$/);
    const json = JSON.parse((await verify(true)).stdout);
    expect(json).toMatchObject({ intact: false, unchained: { events: 0, streams: 0 } });
    expect(json.broken.map((link: { streamId: string; revision: number; reason: string }) => [link.streamId, link.revision, link.reason]).sort()).toEqual(
      [
        [changed, 1, 'content'],
        [deleted, 2, 'missing-predecessor'],
        [swapped, 1, 'previous-hash'],
      ].sort(),
    );
  });

  // The command line itself, as built: what an operator types, and what the README shows.
  it('runs as `ledgerline audit verify --chain` from the command line, and exits 1 on the broken log', async () => {
    const cli = path.join(path.dirname(await ensureBuiltService()), 'cli.js');
    const env = { ...process.env, DATABASE_URL: t.runtime.config.databaseUrl as string, LOG_LEVEL: 'warn' };
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [cli, ...args], { env }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      );
    const verified = await run(['audit', 'verify', '--chain']);
    console.log(`$ ledgerline audit verify --chain; echo $?\n${verified.stderr}${verified.stdout}${verified.code}`);
    expect(verified.code).toBe(1);
    expect(verified.stdout.match(/^BROKEN /gm)).toHaveLength(3);
    const chained = await run(['audit', 'chain']);
    expect([chained.code, chained.stdout.trim()]).toEqual([0, 'Chained 0 events: every event has its hash.']);
  }, 360_000);
});
