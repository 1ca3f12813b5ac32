import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { Decider } from '../../core/decider.js';
import type { TagCreated } from './tag.js';
import { tagDecider } from './tag.decider.js';
import { decideTagName, evolveTagName, initialTagNameState, type TagNameCommand, type TagNameEvent, type TagNameState } from './tag-name.js';

const created: TagCreated = { type: 'TagCreated', data: { tagId: 'g1', name: 'Travel', color: 'blue' } };
const spec = specification(tagDecider);

describe('tag decider', () => {
  it('creates a tag once', () => {
    spec.given([]).when({ type: 'CreateTag', tagId: 'g1', name: 'Travel', color: 'blue' }).then([created]);
    spec.given([created]).when({ type: 'CreateTag', tagId: 'g1', name: 'Travel', color: 'blue' }).thenThrows((error) => expect((error as DomainRuleError).code).toBe('TAG_EXISTS'));
  });

  it('records only what an edit changes', () => {
    spec
      .given([created])
      .when({ type: 'EditTag', tagId: 'g1', changes: { name: 'Trips', color: 'blue', archived: true } })
      .then([
        { type: 'TagRenamed', data: { tagId: 'g1', name: 'Trips' } },
        { type: 'TagArchived', data: { tagId: 'g1' } },
      ]);
    spec.given([created]).when({ type: 'EditTag', tagId: 'g1', changes: { name: 'Travel', archived: false } }).then([]);
    spec
      .given([created, { type: 'TagArchived', data: { tagId: 'g1' } }])
      .when({ type: 'EditTag', tagId: 'g1', changes: { archived: false, color: 'rose' } })
      .then([
        { type: 'TagRecolored', data: { tagId: 'g1', color: 'rose' } },
        { type: 'TagUnarchived', data: { tagId: 'g1' } },
      ]);
  });

  it('edits neither an unknown nor a deleted tag', () => {
    spec.given([]).when({ type: 'EditTag', tagId: 'g1', changes: { name: 'x' } }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
    spec.given([created, { type: 'TagDeleted', data: { tagId: 'g1' } }]).when({ type: 'EditTag', tagId: 'g1', changes: { name: 'x' } }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });

  it('deletes idempotently, and an unknown tag is not found', () => {
    spec.given([created]).when({ type: 'DeleteTag', tagId: 'g1' }).then([{ type: 'TagDeleted', data: { tagId: 'g1' } }]);
    spec.given([created, { type: 'TagDeleted', data: { tagId: 'g1' } }]).when({ type: 'DeleteTag', tagId: 'g1' }).then([]);
    spec.given([]).when({ type: 'DeleteTag', tagId: 'g1' }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });
});

const tagNameDecider: Decider<TagNameCommand, TagNameEvent, TagNameState> = { decide: decideTagName, evolve: evolveTagName, initialState: initialTagNameState };
const names = specification(tagNameDecider);
const claimed: TagNameEvent = { type: 'TagNameClaimed', data: { tagId: 'g1', name: 'Travel' } };

describe('tag name claim', () => {
  it('claims a free name, and claiming it again for the same tag changes nothing', () => {
    names.given([]).when({ type: 'ClaimTagName', tagId: 'g1', name: 'Travel', holderStillHoldsIt: false }).then([claimed]);
    names.given([claimed]).when({ type: 'ClaimTagName', tagId: 'g1', name: 'TRAVEL', holderStillHoldsIt: true }).then([]);
  });

  it('refuses a name another tag holds', () => {
    names.given([claimed]).when({ type: 'ClaimTagName', tagId: 'g2', name: 'travel', holderStillHoldsIt: true }).thenThrows((error) => expect((error as DomainRuleError).code).toBe('TAG_NAME_TAKEN'));
  });

  it('takes over a released name, or a claim its tag no longer holds', () => {
    const takeover: TagNameEvent = { type: 'TagNameClaimed', data: { tagId: 'g2', name: 'travel' } };
    names.given([claimed, { type: 'TagNameReleased', data: { tagId: 'g1' } }]).when({ type: 'ClaimTagName', tagId: 'g2', name: 'travel', holderStillHoldsIt: true }).then([takeover]);
    names.given([claimed]).when({ type: 'ClaimTagName', tagId: 'g2', name: 'travel', holderStillHoldsIt: false }).then([takeover]);
  });

  it('releases only its own claim', () => {
    names.given([claimed]).when({ type: 'ReleaseTagName', tagId: 'g1' }).then([{ type: 'TagNameReleased', data: { tagId: 'g1' } }]);
    names.given([claimed]).when({ type: 'ReleaseTagName', tagId: 'g2' }).then([]);
    names.given([]).when({ type: 'ReleaseTagName', tagId: 'g1' }).then([]);
  });
});
