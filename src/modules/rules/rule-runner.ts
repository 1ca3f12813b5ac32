import type { Kysely } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, currentState, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { detachTagsDeletedMeanwhile } from '../tags/deleted-tag-guard.js';
import { unusableTagIds } from '../tags/tag-directory.js';
import { type TransactionState, transactionStreamId } from '../transactions/transaction.js';
import { transactionDecider } from '../transactions/transaction.decider.js';
import type { Rule } from './rule.js';
import { changesOf, type RuleChanges, ruleMatches, type TransactionFacts } from './rule-evaluation.js';

/** A rule ready to run: its conditions, and its actions merged into the changes it asks for. */
export interface RunnableRule {
  readonly rule: Rule;
  readonly changes: RuleChanges;
}

/** What running rules on one transaction did: how many of them matched it, how many changed it. */
export interface RuleRunCounts {
  readonly matched: number;
  readonly changed: number;
}

/**
 * The rules' changes, tags that are no longer usable (deleted, archived) left out: a rule keeps
 * naming a tag the user has since retired, and applies the rest of what it says.
 */
export async function runnableRules(db: Kysely<Database>, userId: string, rules: readonly Rule[]): Promise<RunnableRule[]> {
  const unusable = await unusableTagIds(db, userId, rules.flatMap((rule) => changesOf(rule.actions).addTagIds ?? []));
  return rules.map((rule) => {
    const changes = changesOf(rule.actions);
    const usable = changes.addTagIds?.filter((tagId) => !unusable.has(tagId));
    return { rule, changes: usable === undefined ? changes : { ...changes, addTagIds: usable } };
  });
}

/**
 * Runs rules, in order, on one transaction of the user's: each one that matches its current values
 * (a rule's change included, so a later rule sees an earlier one's category) appends its changes
 * on the transaction's stream, actor `system` and the rule's id in the metadata. Locked fields and
 * values already there decide no event, so running again appends nothing.
 */
export async function runRulesOn(
  store: EventStore,
  transactionId: string,
  rules: readonly RunnableRule[],
  context: Omit<CommandContext, 'actor' | 'ruleId'>,
): Promise<RuleRunCounts> {
  const streamId = transactionStreamId(transactionId);
  let state = await currentState(store, streamId, transactionDecider, context.userId);
  let matched = 0;
  let changed = 0;
  for (const { rule, changes } of rules) {
    const facts = factsOf(state);
    if (!facts || !ruleMatches(rule, facts)) continue;
    matched += 1;
    const ruleContext: CommandContext = { ...context, actor: 'system', ruleId: rule.id };
    const outcome = await handleCommand(store, streamId, transactionDecider, { type: 'ApplyRule', transactionId, changes }, ruleContext, 'Transaction');
    state = outcome.state;
    if (outcome.events.length === 0) continue;
    changed += 1;
    const applied = outcome.events.flatMap((event) => (event.type === 'TagApplied' ? event.data.tagIds : []));
    if (applied.length > 0) await detachTagsDeletedMeanwhile(store, transactionId, applied, ruleContext);
  }
  return { matched, changed };
}

function factsOf(state: TransactionState): TransactionFacts | null {
  if (state.status !== 'live' || !state.current || !state.accountId) return null;
  const { name, merchantName, amount, categoryId } = state.current;
  return { name, merchantName, amount, accountId: state.accountId, categoryId };
}
