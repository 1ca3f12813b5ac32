import { readFileSync } from 'node:fs';
import { charsetOf, ofxStatementEntries } from './ofx-statement.js';
import { UnreadableStatementError } from './statement.js';

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/statements/${name}`, import.meta.url));

describe('OFX statements', () => {
  it('reads OFX 1.x SGML: header block, CRLF, leaves without closing tags, bracketed time zones, plus signs, entities, Windows-1252', () => {
    const entries = [...ofxStatementEntries(fixture('checking-1x.ofx'))];
    expect(charsetOf(fixture('checking-1x.ofx'))).toBe('windows-1252');
    expect(entries).toEqual([
      { row: 1, transaction: { date: '2026-11-02', amount: '-4.5', name: 'BLUE BOTTLE COFFEE', notes: 'POS PURCHASE CARD 1234', fitId: '2026110201' } },
      { row: 2, transaction: { date: '2026-11-03', amount: '2450', name: 'ACME CORP PAYROLL', notes: 'DIRECT DEP', fitId: '2026110301' } },
      { row: 3, transaction: { date: '2026-11-05', amount: '-18.25', name: 'CAFÉ RÉSISTANCE & BAR', notes: null, fitId: '2026110501' } },
      { row: 4, transaction: { date: '2026-11-09', amount: '-1200', name: 'CHECK 1043', notes: 'RENT NOVEMBER', fitId: '2026110901' } },
      { row: 5, transaction: { date: '2026-11-12', amount: '35.99', name: 'TARGET REFUND', notes: null, fitId: '2026111201' } },
      { row: 6, transaction: { date: '2026-11-15', amount: '-64.12', name: 'PG&E WEB ONLINE', notes: 'UTILITY BILL', fitId: '2026111501' } },
    ]);
  });

  it('reads OFX 2.x XML (a credit card statement)', () => {
    const entries = [...ofxStatementEntries(fixture('credit-card-2x.ofx'))];
    expect(entries.map((entry) => ('transaction' in entry ? [entry.transaction.date, entry.transaction.amount, entry.transaction.name, entry.transaction.fitId] : entry))).toEqual([
      ['2026-11-04', '-52.37', "TRADER JOE'S #552", '320261104001'],
      ['2026-11-06', '-13.99', 'SPOTIFY USA', '320261106001'],
      ['2026-11-10', '19.99', 'BEST BUY REFUND', '320261110001'],
      ['2026-11-15', '500', 'PAYMENT THANK YOU', '320261115001'],
    ]);
  });

  it('lists a bad transaction by its place in the file and reads the others; a missing </STMTTRN> ends at the next one', () => {
    const file = Buffer.from(
      'OFXHEADER:100\nDATA:OFXSGML\nCHARSET:ISO-8859-1\n\n<OFX><BANKTRANLIST>\n<STMTTRN><DTPOSTED>2026133 <TRNAMT>-1<NAME>Bad\n<STMTTRN><DTPOSTED>20261101<TRNAMT>1,50<NAME>caf\xe9<FITID>A\n</BANKTRANLIST></OFX>',
      'latin1',
    );
    expect([...ofxStatementEntries(file)]).toEqual([
      { row: 1, failure: expect.stringMatching(/DTPOSTED "2026133".*line 6/) },
      { row: 2, transaction: { date: '2026-11-01', amount: '1.5', name: 'café', notes: null, fitId: 'A' } },
    ]);
  });

  it('refuses what is not OFX, and a transaction cut off by the end of the file, with its line', () => {
    expect(() => [...ofxStatementEntries(Buffer.from('Date,Amount\n'))]).toThrow(UnreadableStatementError);
    const cut = (() => {
      try {
        return [...ofxStatementEntries(Buffer.from('<OFX>\n<BANKTRANLIST>\n<STMTTRN>\n<TRNAMT>1\n'))];
      } catch (error) {
        return error;
      }
    })();
    expect(cut).toMatchObject({ name: 'UnreadableStatementError', line: 3 });
  });
});
