import type { CommandContext } from '../event-store/handle-command.js';

/**
 * What a job queued on behalf of a request carries, so the events it appends later share the
 * request's correlation id and name the request as their cause. Optional in every job input:
 * scheduled runs and jobs queued before it existed have none, and start a correlation of their own.
 */
export interface JobTrace {
  readonly correlationId: string;
  readonly causationId: string;
}

/** The trace of a job queued by the command whose context this is: same correlation, caused by its request. */
export function jobTraceOf(context: Pick<CommandContext, 'requestId' | 'correlationId'>): JobTrace {
  return { correlationId: context.correlationId ?? context.requestId, causationId: context.requestId };
}

/** The part of a job's command context its trace gives (nothing without one). */
export function tracedBy(trace: JobTrace | undefined): Pick<CommandContext, 'correlationId' | 'causationId'> {
  return trace ? { correlationId: trace.correlationId, causationId: trace.causationId } : {};
}
