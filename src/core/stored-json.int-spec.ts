import fc from 'fast-check';
import pg from 'pg';
import { asStoredJson } from './stored-json.js';

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
});

afterAll(async () => {
  await client.end();
});

/** Keys and text PostgreSQL stores (no NUL, no lone surrogate: the API refuses both before they reach an event). */
const text = fc.string({ unit: 'grapheme', maxLength: 8 });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('asStoredJson', () => {
  it('gives exactly what jsonb gives back, key order included', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        const { rows } = await client.query<{ stored: string }>('SELECT $1::jsonb::text AS stored', [JSON.stringify(value)]);
        expect(JSON.stringify(asStoredJson(value))).toBe(JSON.stringify(JSON.parse(rows[0].stored)));
      }),
      { numRuns: 300 },
    );
  });
});
