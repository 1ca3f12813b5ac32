import iconv from 'iconv-lite';
import { acceptedDate, amountOf, MAX_NAME_LENGTH, MAX_NOTES_LENGTH, quoted, type StatementEntry, textProblem, tidyText, UnreadableStatementError } from './statement.js';

/**
 * The transactions (`<STMTTRN>`) of an OFX file, bank or credit card, one at a time: OFX 1.x
 * (SGML: a `KEY:VALUE` header block, leaf elements without closing tags) and 2.x (XML) alike, in
 * the charset the header declares (1.x `CHARSET:1252` or `ISO-8859-1`, `ENCODING:UTF-8`; 2.x the
 * XML declaration's `encoding`). A row's number is its transaction's place in the file (the
 * first `<STMTTRN>` is row 1). `DTPOSTED` is the bank's local day, whatever time zone follows it.
 */
export function* ofxStatementEntries(bytes: Buffer): Generator<StatementEntry> {
  const text = iconv.decode(bytes, charsetOf(bytes));
  const start = text.search(/<OFX>/i);
  if (start === -1) throw new UnreadableStatementError(1, 'No <OFX> element: this is not an OFX file.');
  const scanner = new OfxScanner(text, start);
  let row = 0;
  let open: { line: number; fields: Map<string, string> } | null = null;
  for (let token = scanner.next(); token !== null; token = scanner.next()) {
    // A bank that leaves </STMTTRN> out still starts the next one, or ends the list.
    const ends = open !== null && ((token.kind === 'close' && (token.name === 'STMTTRN' || token.name === 'BANKTRANLIST')) || (token.kind === 'open' && token.name === 'STMTTRN'));
    if (open && ends) {
      row += 1;
      yield entryOf(row, open.line, open.fields);
      open = null;
    }
    if (token.kind === 'open' && token.name === 'STMTTRN') open = { line: token.line, fields: new Map() };
    else if (open && token.kind === 'leaf' && !open.fields.has(token.name)) {
      open.fields.set(token.name, token.value);
    }
  }
  if (open) throw new UnreadableStatementError(open.line, 'The <STMTTRN> opened here is never closed.');
}

type Token = { kind: 'open' | 'close'; name: string; line: number } | { kind: 'leaf'; name: string; value: string; line: number };

/**
 * Reads tags and the text after them. An element followed by text is a leaf (SGML leaves end at
 * the next tag; XML ones with a closing tag, which is then skipped); one followed by another tag
 * is an aggregate, closed by its `</NAME>`.
 */
class OfxScanner {
  private line: number;

  constructor(
    private readonly text: string,
    private offset: number,
  ) {
    this.line = countLines(text, 0, offset) + 1;
  }

  next(): Token | null {
    for (;;) {
      const open = this.text.indexOf('<', this.offset);
      if (open === -1) return null;
      this.advanceTo(open);
      const close = this.text.indexOf('>', open);
      if (close === -1) throw new UnreadableStatementError(this.line, 'A tag is never closed with ">".');
      const tag = this.text.slice(open + 1, close).trim();
      const line = this.line;
      this.advanceTo(close + 1);
      if (tag.startsWith('?') || tag.startsWith('!')) continue;
      if (tag.startsWith('/')) return { kind: 'close', name: tag.slice(1).trim().toUpperCase(), line };
      const name = tag.split(/\s/, 1)[0].replace(/\/$/, '').toUpperCase();
      if (!/^[A-Z][A-Z0-9._]*$/.test(name)) throw new UnreadableStatementError(line, `<${tag.slice(0, 40)}> is not an OFX tag.`);
      if (tag.endsWith('/')) continue;
      const nextTag = this.text.indexOf('<', this.offset);
      const value = decodeEntities(this.text.slice(this.offset, nextTag === -1 ? this.text.length : nextTag)).trim();
      if (value === '') return { kind: 'open', name, line };
      this.advanceTo(nextTag === -1 ? this.text.length : nextTag);
      return { kind: 'leaf', name, value, line };
    }
  }

  private advanceTo(offset: number): void {
    this.line += countLines(this.text, this.offset, offset);
    this.offset = offset;
  }
}

function countLines(text: string, from: number, to: number): number {
  let lines = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) lines += 1;
  return lines;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

/** The charset the header declares; Windows-1252 for a 1.x file that names none (what US banks send). */
export function charsetOf(bytes: Buffer): string {
  const head = bytes.subarray(0, 2048).toString('latin1');
  const xml = /<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml) return knownCharset(xml[1]) ?? 'utf-8';
  if (/<\?xml/i.test(head)) return 'utf-8';
  const encoding = /^\s*ENCODING:\s*(\S+)/im.exec(head)?.[1]?.toUpperCase();
  if (encoding === 'UTF-8' || encoding === 'UNICODE') return 'utf-8';
  const charset = /^\s*CHARSET:\s*(\S+)/im.exec(head)?.[1]?.toUpperCase() ?? 'NONE';
  if (charset === '1252' || charset === 'NONE') return 'windows-1252';
  if (/8859-?1$/.test(charset)) return 'latin1';
  return knownCharset(charset) ?? (/^\d+$/.test(charset) && iconv.encodingExists(`cp${charset}`) ? `cp${charset}` : 'windows-1252');
}

function knownCharset(name: string): string | null {
  return iconv.encodingExists(name) ? name : null;
}

function entryOf(row: number, line: number, fields: ReadonlyMap<string, string>): StatementEntry {
  const failure = (message: string): StatementEntry => ({ row, failure: `${message} (line ${line})` });
  const posted = fields.get('DTPOSTED') ?? fields.get('DTUSER') ?? '';
  const day = /^(\d{4})(\d{2})(\d{2})/.exec(posted);
  const date = day ? acceptedDate(day[1], day[2], day[3]) : null;
  if (date === null) return failure(`DTPOSTED ${quoted(posted)} is not a date from 1900 to 2199`);
  const amountText = (fields.get('TRNAMT') ?? '').replace(/^\+/, '').replace(/\s/g, '');
  // A few European banks write TRNAMT with a decimal comma.
  const amount = amountOf(/^-?\d+,\d+$/.test(amountText) ? amountText.replace(',', '.') : amountText.replace(/^(-?)\./, '$10.'));
  if (amount === null) return failure(`TRNAMT ${quoted(fields.get('TRNAMT') ?? '')} is not an amount with at most 4 decimals`);
  const memo = tidyText(fields.get('MEMO') ?? '');
  const name = tidyText(fields.get('NAME') ?? '') || memo || tidyText(fields.get('TRNTYPE') ?? '');
  if (name === '') return failure('the transaction has no NAME, MEMO or TRNTYPE');
  const notes = memo !== '' && memo !== name ? memo : null;
  const problem = textProblem('name', name, MAX_NAME_LENGTH) ?? textProblem('notes', notes ?? '', MAX_NOTES_LENGTH);
  if (problem) return failure(problem);
  const fitId = fields.get('FITID')?.trim() || null;
  if (fitId !== null && fitId.length > 255) return failure('FITID is longer than 255 characters');
  return { row, transaction: { date, amount, name, notes, fitId } };
}
