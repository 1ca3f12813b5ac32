import { sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import type { DatabaseConnection } from '../database/database.js';
import { projectionSchema } from './projection.js';
import { auditVerifyCommand, rebuildCommand } from './rebuild-commands.js';
import { type ProjectedLedger, startProjectedLedger } from '../../../test/support/projection-fixture.js';
import type { PostgresEventStore } from '../event-store/postgres-event-store.js';

let ledger: ProjectedLedger;
let connection: DatabaseConnection;
let store: PostgresEventStore;
const chosen = PROJECTIONS.filter((projection) => ['tags', 'accounts'].includes(projection.name));

beforeAll(async () => {
  ledger = await startProjectedLedger(chosen, { events: 4_000, timeoutMs: 60_000 });
  ({ connection, store } = ledger);
}, 90_000);

afterAll(() => ledger.close());

function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  const progress: string[] = [];
  return { lines, errors, progress, out: { log: (line: string) => lines.push(line), error: (line: string) => errors.push(line) }, stream: { isTTY: false, write: (text: string) => progress.push(text) } };
}

describe('ledgerline projections rebuild', () => {
  it('rebuilds the projections named, with progress lines on a stream that is not a terminal, and exits 0', async () => {
    const { lines, errors, progress, out, stream } = capture();
    expect(await rebuildCommand(connection, store, chosen, { names: ['tags', 'accounts'], all: false, batchSize: 1_000 }, out, stream)).toBe(0);
    expect(errors).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^tags v1: rebuilt at \d+\/\d+, 10 events applied, [\d,]+ read in \d+ s \([\d,]+ ev\/s\), 0 parked$/), expect.stringMatching(/^accounts v\d+: rebuilt at/)]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((line) => /^rebuild (tags|accounts): [\d,]+\/[\d,]+ events \(\d+%\), .*\n$/.test(line))).toBe(true);
    expect(progress.filter((line) => line.includes('done in'))).toHaveLength(2);
  }, 60_000);

  it('exits 1 naming an unknown projection, and rebuilds nothing', async () => {
    const { errors, out, stream } = capture();
    expect(await rebuildCommand(connection, store, chosen, { names: ['tags', 'nope'], all: false }, out, stream)).toBe(1);
    expect(errors).toEqual(['projections rebuild: unknown projection "nope"; known: accounts, tags']);
  });
});

describe('ledgerline audit verify', () => {
  it('prints each table agreeing and exits 0; after a row is changed behind the projection, DISAGREES and exits 1; --json says the same', async () => {
    const healthy = capture();
    expect(await auditVerifyCommand(connection.db, store, chosen, {}, healthy.out)).toBe(0);
    expect(healthy.lines).toContainEqual(expect.stringMatching(/^tags\t1\ttags\t10\t10\t[0-9a-f]{32}\t[0-9a-f]{32}\tagrees$/));
    expect(healthy.lines.at(-1)).toBe('every read model agrees with a replay of the event store (2 projections)');

    await sql`UPDATE ${sql.table(`${projectionSchema(chosen.find((projection) => projection.name === 'tags')!)}.tags`)} SET color = 'red' WHERE name = 'Tag 1'`.execute(connection.db);
    const tampered = capture();
    expect(await auditVerifyCommand(connection.db, store, chosen, { projection: 'tags' }, tampered.out)).toBe(1);
    expect(tampered.lines[1]).toMatch(/^tags\t1\ttags\t10\t10\t.*\tDISAGREES$/);
    const json = capture();
    expect(await auditVerifyCommand(connection.db, store, chosen, { projection: 'tags', json: true }, json.out)).toBe(1);
    const parsed = JSON.parse(json.lines.join('\n')) as { agree: boolean; projections: { projection: string; position: string; tables: { agree: boolean }[] }[] };
    expect(parsed).toMatchObject({ agree: false, projections: [{ projection: 'tags', tables: [{ agree: false }] }] });
    expect(parsed.projections[0].position).toMatch(/^\d+\/\d+$/);

    const unknown = capture();
    expect(await auditVerifyCommand(connection.db, store, chosen, { projection: 'nope' }, unknown.out)).toBe(1);
    expect(unknown.errors[0]).toMatch(/^audit verify: unknown projection "nope"/);
  }, 60_000);
});
