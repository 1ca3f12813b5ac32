import { nameBasedId } from '../../core/ids.js';
import type { TransactionCreated } from '../transactions/transaction.js';
import { csvStatementEntries, type CsvStatementOptions } from './csv-statement.js';
import { ofxStatementEntries } from './ofx-statement.js';
import { normalisedName, type StatementEntry, type StatementFormat, type StatementTransaction } from './statement.js';

/** Namespace of the ids of imported transactions (a fixed random UUID). */
const IMPORTED_TRANSACTIONS = '8a3c2f61-0d4e-4b7a-9c15-6e2b7f94d0a3';

/** A file's rows, whatever its format. */
export async function* statementEntries(format: StatementFormat, bytes: Buffer, options: CsvStatementOptions): AsyncGenerator<StatementEntry> {
  if (format === 'csv') yield* csvStatementEntries(bytes, options);
  else yield* ofxStatementEntries(bytes);
}

/**
 * The transaction id each row of one file becomes: from the account and FITID when the bank gave
 * one, else from the account, day, amount, normalised name and how many times that triple came
 * before in the file. The same statement imported again gives the same ids, so its streams exist
 * and nothing is appended twice. Null: a FITID this file already had (the bank repeated it).
 */
export class StatementRowKeys {
  private readonly occurrences = new Map<string, number>();
  private readonly fitIds = new Set<string>();

  constructor(private readonly accountId: string) {}

  transactionIdOf(transaction: StatementTransaction): string | null {
    if (transaction.fitId !== null) {
      if (this.fitIds.has(transaction.fitId)) return null;
      this.fitIds.add(transaction.fitId);
      return nameBasedId(IMPORTED_TRANSACTIONS, `${this.accountId}\nfitid\n${transaction.fitId}`);
    }
    const triple = `${transaction.date}\n${transaction.amount}\n${normalisedName(transaction.name)}`;
    const occurrence = (this.occurrences.get(triple) ?? 0) + 1;
    this.occurrences.set(triple, occurrence);
    return nameBasedId(IMPORTED_TRANSACTIONS, `${this.accountId}\nrow\n${triple}\n${occurrence}`);
  }
}

/** The event data of a row's transaction: a manual one, as POST /transactions would create it. */
export function transactionCreatedOf(transactionId: string, accountId: string, transaction: StatementTransaction): TransactionCreated['data'] {
  return {
    transactionId,
    accountId,
    source: 'manual',
    name: transaction.name,
    merchantName: null,
    amount: transaction.amount,
    date: transaction.date,
    categoryId: null,
    notes: transaction.notes,
    paymentChannel: null,
    location: null,
    tagIds: [],
    pending: false,
    authorizedDate: null,
  };
}
