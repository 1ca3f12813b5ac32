import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { runnableRules, runRulesOn } from './rule-runner.js';
import { applicationToRun, markApplicationFinished, recordApplicationProgress } from './rule-applications.store.js';
import { findRule } from './rules.store.js';

export const RULE_APPLICATION_JOB = 'rule-application';
export const ruleApplicationJobId = (applicationId: string) => `rule-application-${applicationId}`;

/** What the activity of a transaction a retroactive application changed shows as its request. */
export const applicationRequestId = (applicationId: string) => `rule-application-${applicationId}`;

export interface RuleApplicationInput {
  readonly userId: string;
  readonly applicationId: string;
}

export interface RuleApplicationHooks {
  /** Called after each transaction is handled (tests stop the job part-way through here). */
  readonly afterTransaction?: (transactionId: string) => void | Promise<void>;
}

const PAGE = 200;

/**
 * Applies one rule to the user's existing transactions (POST /rules/{id}/apply): pages through
 * them by id, recording the last id and the counts after each page, so a run stopped part-way
 * resumes after the last page it recorded. A page done again appends nothing twice — a rule
 * applied to a transaction that has its values decides no event — but counts it as matched.
 */
export function ruleApplicationJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock'>, hooks: RuleApplicationHooks = {}): JobDefinition<RuleApplicationInput> {
  return {
    name: RULE_APPLICATION_JOB,
    async handle({ userId, applicationId }) {
      const { db } = runtime.database;
      const application = await applicationToRun(db, userId, applicationId);
      if (!application || application.status === 'completed' || application.status === 'failed') return;
      const rule = await findRule(db, userId, application.rule_id);
      if (!rule) {
        await markApplicationFinished(db, applicationId, { error: 'The rule was deleted.' }, runtime.clock.now());
        return;
      }
      const rules = await runnableRules(db, userId, [rule]);
      const context = { userId, requestId: applicationRequestId(applicationId), correlationId: application.correlation_id, causationId: applicationRequestId(applicationId) };
      let { matched, changed } = application;
      let after = application.after_transaction_id ?? '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const page = await db.selectFrom('transactions').select('id').where('user_id', '=', userId).where('id', '>', after).orderBy('id').limit(PAGE).execute();
        for (const { id } of page) {
          const counts = await runRulesOn(runtime.eventStore, id, rules, { ...context, now: runtime.clock.now() });
          matched += counts.matched;
          changed += counts.changed;
          await hooks.afterTransaction?.(id);
        }
        if (page.length === 0) break;
        after = page[page.length - 1].id;
        await recordApplicationProgress(db, applicationId, { afterTransactionId: after, matched, changed });
        if (page.length < PAGE) break;
      }
      await markApplicationFinished(db, applicationId, {}, runtime.clock.now());
    },
  };
}
