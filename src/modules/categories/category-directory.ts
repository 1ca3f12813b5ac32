import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import type { ReadYourWrites } from '../../infrastructure/runtime/read-your-writes.js';
import { DATABASE, EVENT_STORE, READ_YOUR_WRITES } from '../../infrastructure/runtime/tokens.js';
import { categoryTaxonomyStreamId } from './category-taxonomy.js';
import { categoryTaxonomyDecider } from './category-taxonomy.decider.js';
import { CURRENT_TAXONOMY_VERSION } from './system-taxonomy.js';

/** The read model every category read goes through; named here so no module imports the projection. */
export const CATEGORIES_READ_MODEL = 'categories';

/**
 * A user's taxonomy is seeded the first time they touch categories — listing them, or naming one on
 * a transaction — and whoever reads it next must see it, so seeding waits for the read model.
 */
@Injectable()
export class CategoryDirectory {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async ensureSeeded(context: CommandContext): Promise<void> {
    if (await isTaxonomySeeded(this.db, context.userId)) return;
    const seeding = { ...context, actor: 'system' as const, causationId: context.requestId };
    const command = { type: 'SeedTaxonomy' as const, userId: context.userId, taxonomyVersion: CURRENT_TAXONOMY_VERSION };
    const streamId = categoryTaxonomyStreamId(context.userId);
    const outcome = await handleCommand(this.store, streamId, categoryTaxonomyDecider, command, seeding, 'Category');
    // Seeded by a concurrent request whose event the read model may not show yet: wait for that one.
    const position = outcome.position ?? (await this.store.readStream(streamId))[0]?.position ?? null;
    await this.readYourWrites.waitFor(position, [CATEGORIES_READ_MODEL]);
  }

  /** Whether `categoryId` names a category of this user (system or their own, hidden ones included). */
  async isCategoryOf(context: CommandContext, categoryId: string): Promise<boolean> {
    await this.ensureSeeded(context);
    const row = await this.db.selectFrom('categories').select('id').where('id', '=', categoryId).where('user_id', '=', context.userId).executeTakeFirst();
    return row !== undefined;
  }
}

export async function isTaxonomySeeded(db: Kysely<Database>, userId: string): Promise<boolean> {
  return (await db.selectFrom('category_taxonomies').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}
