import { causeOf, reaction } from '../../infrastructure/projections/reaction.js';
import { TAG_DELETION_JOB, type TagDeletionInput, tagDeletionJobId } from './tag-deletion.job.js';

/** A deleted tag asks for its fan-out: the job that takes it off every transaction still carrying it. */
export const tagDeletionReaction = reaction({
  name: 'tag-deletion-requests',
  version: 1,
  eventTypes: ['TagDeleted'],
  jobsFor: (events) =>
    events.map((event) => {
      const input: TagDeletionInput = { userId: event.metadata.userId, tagId: (event.data as { tagId: string }).tagId };
      return { name: TAG_DELETION_JOB, input, jobId: tagDeletionJobId(input.tagId), cause: causeOf(event) };
    }),
});
