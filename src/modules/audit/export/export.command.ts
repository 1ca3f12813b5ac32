import type { Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventLog } from '../../../infrastructure/event-store/event-log.port.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import type { CommandOutput } from '../../../infrastructure/projections/projection-commands.js';
import { findUserByEmail } from '../../identity/identity.store.js';
import { userExport } from './user-export.js';

/**
 * `ledgerline export --email E > file`: an operator's export of one user's history, the NDJSON of
 * `GET /v1/export`, written to `destination` (stdout) as fast as it takes it. Exit 0 written; 1 no
 * such user; 2 usage.
 */
export async function exportCommand(
  dependencies: { db: Kysely<Database>; log: EventLog; store: Pick<EventStore, 'headPosition'> },
  email: string | undefined,
  destination: NodeJS.WritableStream,
  out: CommandOutput,
): Promise<number> {
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    out.error('export takes --email and the address of the user: ledgerline export --email E > file');
    return 2;
  }
  const user = await findUserByEmail(dependencies.db, email);
  if (!user) {
    out.error(`No user with the email ${email}.`);
    return 1;
  }
  let events = 0;
  for await (const chunk of await userExport(dependencies.log, dependencies.store, user.id)) {
    const bytes = chunk as Buffer;
    for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) events += 1;
    if (!destination.write(bytes)) await new Promise((resolve) => destination.once('drain', resolve));
  }
  out.error(`Exported ${events.toLocaleString('en')} events of user ${user.id} <${user.email}>.`);
  return 0;
}
