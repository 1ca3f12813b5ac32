import { randomUUID } from 'node:crypto';
import { tagDeletionJob } from '../src/modules/tags/tag-deletion.job.js';
import { tagStreamId } from '../src/modules/tags/tag.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let userId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key, userId, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

let names = 0;
const uniqueName = (prefix = 'Tag') => `${prefix} ${(names += 1)}`;
const newTag = async (overrides: Record<string, unknown> = {}) => (await t.as(key).post('/v1/tags', { name: uniqueName(), color: 'blue', ...overrides }).expect(201)).body as { id: string; name: string };
const newTransaction = async (overrides: Record<string, unknown> = {}) =>
  (await t.as(key).post('/v1/transactions', { accountId, amount: -10, date: '2026-11-20', name: 'Shop', ...overrides }).expect(201)).body as { id: string; tagIds: string[] };
const tagsOf = async () => (await t.as(key).get('/v1/tags').expect(200)).body.tags as Array<{ id: string; name: string; usageCount: number; archivedAt: string | null }>;
const transaction = async (id: string) => (await t.as(key).get(`/v1/transactions/${id}`).expect(200)).body;
const activity = async (id: string) => (await t.as(key).get(`/v1/transactions/${id}/activity`).expect(200)).body.events as Array<{ kind: string; field: string; oldValue: unknown; newValue: unknown; actor: string }>;

describe('tags', () => {
  it('creates, lists, renames, recolours, archives and unarchives a tag', async () => {
    const created = (await t.as(key).post('/v1/tags', { name: '  Holiday 2026 ', color: 'teal' }).expect(201)).body;
    expect(created).toMatchObject({ name: 'Holiday 2026', color: 'teal', archivedAt: null, id: expect.any(String), createdAt: expect.any(String), updatedAt: expect.any(String) });
    const patched = (await t.as(key).patch(`/v1/tags/${created.id}`, { name: 'Trips', color: 'rose', archived: true }).expect(200)).body;
    expect(patched).toMatchObject({ id: created.id, name: 'Trips', color: 'rose', archivedAt: expect.any(String) });
    expect((await tagsOf()).find((tag) => tag.id === created.id)).toMatchObject({ name: 'Trips', usageCount: 0, archivedAt: expect.any(String) });
    expect((await t.as(key).patch(`/v1/tags/${created.id}`, { archived: false }).expect(200)).body.archivedAt).toBeNull();
    expect((await t.as(key).patch(`/v1/tags/${created.id}`, {}).expect(200)).body.name).toBe('Trips');
  });

  it('refuses bad names and colours with 422', async () => {
    for (const body of [{ name: '', color: 'blue' }, { name: '   ', color: 'blue' }, { name: 'x'.repeat(51), color: 'blue' }, { name: 'ok', color: 'mauve' }, { name: 'ok' }, { name: 'ok', color: 'blue', extra: 1 }]) {
      await t.as(key).post('/v1/tags', body).expect(422);
    }
    await t.as(key).post('/v1/tags', { name: 'y'.repeat(50), color: 'stone' }).expect(201);
  });

  it('keeps names unique per user ignoring case, frees a name on rename and delete, and lets other users have it', async () => {
    const tag = await newTag({ name: 'Groceries' });
    expect((await t.as(key).post('/v1/tags', { name: 'GROCERIES', color: 'red' }).expect(409)).body).toEqual({ code: 'TAG_NAME_TAKEN', error: expect.any(String) });
    const other = await newTag({ name: 'Food' });
    await t.as(key).patch(`/v1/tags/${other.id}`, { name: 'groceries' }).expect(409);
    expect((await t.as(key).patch(`/v1/tags/${tag.id}`, { name: 'groceries' }).expect(200)).body.name).toBe('groceries');
    await t.as(key).patch(`/v1/tags/${tag.id}`, { name: 'Supermarket' }).expect(200);
    await t.as(key).post('/v1/tags', { name: 'Groceries', color: 'red' }).expect(201);
    await t.as(key).delete(`/v1/tags/${other.id}`).expect(204);
    await t.as(key).post('/v1/tags', { name: 'food', color: 'red' }).expect(201);
    const stranger = await t.newUser();
    await t.as(stranger.key).post('/v1/tags', { name: 'Supermarket', color: 'red' }).expect(201);
  });

  it('gives one 201 and one 409 to two concurrent creates of the same name', async () => {
    for (let round = 0; round < 5; round += 1) {
      const name = uniqueName('Race');
      const responses = await Promise.all([t.as(key).post('/v1/tags', { name, color: 'blue' }), t.as(key).post('/v1/tags', { name: name.toUpperCase(), color: 'red' })]);
      expect(responses.map((response) => response.status).sort()).toEqual([201, 409]);
      expect((await tagsOf()).filter((tag) => tag.name.toLowerCase() === name.toLowerCase())).toHaveLength(1);
    }
  });

  it('deletes with 204 and no body, again with 204; an unknown or another user\'s tag is 404', async () => {
    const tag = await newTag();
    const response = await t.as(key).delete(`/v1/tags/${tag.id}`).expect(204);
    expect(response.text).toBe('');
    await t.as(key).delete(`/v1/tags/${tag.id}`).expect(204);
    await t.as(key).patch(`/v1/tags/${tag.id}`, { name: 'back' }).expect(404);
    await t.as(key).delete(`/v1/tags/${randomUUID()}`).expect(404);
    expect((await tagsOf()).some((listed) => listed.id === tag.id)).toBe(false);
    const mine = await newTag();
    const stranger = await t.newUser();
    await t.as(stranger.key).delete(`/v1/tags/${mine.id}`).expect(404);
    await t.as(stranger.key).patch(`/v1/tags/${mine.id}`, { name: 'hijack' }).expect(404);
    expect((await tagsOf()).find((listed) => listed.id === mine.id)?.name).toBe(mine.name);
  });
});

describe('applying tags', () => {
  it('applies tags on create, PATCH and PUT, shows them with names and colours, locks and restores, and logs each change', async () => {
    const [a, b, c] = [await newTag({ color: 'red' }), await newTag(), await newTag()];
    const created = await newTransaction({ tagIds: [b.id, a.id] });
    expect([...created.tagIds].sort()).toEqual([a.id, b.id].sort());
    const put = (await t.as(key).put(`/v1/transactions/${created.id}/tags`, { tagIds: [c.id, a.id] }).expect(200)).body;
    expect([...put.tagIds].sort()).toEqual([a.id, c.id].sort());
    expect(put.tags).toEqual(expect.arrayContaining([{ id: a.id, name: a.name, color: 'red' }, { id: c.id, name: c.name, color: 'blue' }]));
    expect(put.lockedFields).toEqual(['tags']);
    const restored = (await t.as(key).patch(`/v1/transactions/${created.id}`, { tagIds: null }).expect(200)).body;
    expect([...restored.tagIds].sort()).toEqual([a.id, b.id].sort());
    expect(restored.lockedFields).toEqual([]);
    const patched = (await t.as(key).patch(`/v1/transactions/${created.id}`, { tagIds: [] }).expect(200)).body;
    expect(patched).toMatchObject({ tagIds: [], tags: [], lockedFields: ['tags'] });
    const sorted = (ids: string[]) => [...ids].sort();
    expect((await activity(created.id)).filter((event) => event.kind === 'edited').map((event) => [event.field, event.oldValue, event.newValue, event.actor])).toEqual([
      ['tags', sorted([a.id, b.id]), [a.id], 'user'],
      ['tags', [a.id], sorted([a.id, c.id]), 'user'],
      ['tags', sorted([a.id, c.id]), [a.id], 'user'],
      ['tags', [a.id], sorted([a.id, b.id]), 'user'],
      ['tags', sorted([a.id, b.id]), [], 'user'],
    ]);
  });

  it('refuses unknown, deleted, archived and other users\' tag ids with 422 at the element', async () => {
    const live = await newTag();
    const archived = await newTag();
    await t.as(key).patch(`/v1/tags/${archived.id}`, { archived: true }).expect(200);
    const deleted = await newTag();
    await t.as(key).delete(`/v1/tags/${deleted.id}`).expect(204);
    const stranger = await t.newUser();
    const foreign = (await t.as(stranger.key).post('/v1/tags', { name: 'Theirs', color: 'blue' }).expect(201)).body;
    const tx = await newTransaction();
    const refused = await t.as(key).put(`/v1/transactions/${tx.id}/tags`, { tagIds: [live.id, randomUUID(), deleted.id, archived.id, foreign.id] }).expect(422);
    expect(refused.body.error.issues.map((issue: { path: unknown[] }) => issue.path)).toEqual([['tagIds', 1], ['tagIds', 2], ['tagIds', 3], ['tagIds', 4]]);
    await t.as(key).patch(`/v1/transactions/${tx.id}`, { tagIds: [archived.id] }).expect(422);
    await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-20', name: 'x', tagIds: [deleted.id] }).expect(422);
    await t.as(key).put(`/v1/transactions/${randomUUID()}/tags`, { tagIds: [] }).expect(404);
    await t.as(stranger.key).put(`/v1/transactions/${tx.id}/tags`, { tagIds: [] }).expect(404);
    expect((await transaction(tx.id)).tagIds).toEqual([]);
  });

  it('shows a rename on every transaction at once, filters by tagId, and counts usage of live transactions only', async () => {
    const tag = await newTag();
    const txs = [await newTransaction({ tagIds: [tag.id] }), await newTransaction({ tagIds: [tag.id] }), await newTransaction({ tagIds: [tag.id] })];
    await newTransaction();
    await t.as(key).patch(`/v1/tags/${tag.id}`, { name: uniqueName('Renamed'), color: 'amber' }).expect(200);
    const listed = (await t.as(key).get(`/v1/transactions?tagId=${tag.id}`).expect(200)).body.transactions as Array<{ id: string; tags: Array<{ name: string; color: string }> }>;
    expect(listed.map((row) => row.id).sort()).toEqual(txs.map((tx) => tx.id).sort());
    expect(listed.every((row) => row.tags[0].name.startsWith('Renamed') && row.tags[0].color === 'amber')).toBe(true);
    expect((await tagsOf()).find((listedTag) => listedTag.id === tag.id)?.usageCount).toBe(3);
    await t.as(key).delete(`/v1/transactions/${txs[0].id}`).expect(200);
    expect((await tagsOf()).find((listedTag) => listedTag.id === tag.id)?.usageCount).toBe(2);
    const stranger = await t.newUser();
    // Another user's tag is not theirs to filter by: 404, as for any filter naming something not yours (decision 0027).
    expect((await t.as(stranger.key).get(`/v1/transactions?tagId=${tag.id}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Tag not found' });
  });

  it('stops counting transactions of a deleted account', async () => {
    const otherAccount = (await t.as(key).post('/v1/accounts', { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 0 }).expect(201)).body.id;
    const tag = await newTag();
    await newTransaction({ accountId: otherAccount, tagIds: [tag.id] });
    await newTransaction({ tagIds: [tag.id] });
    expect((await tagsOf()).find((listed) => listed.id === tag.id)?.usageCount).toBe(2);
    await t.as(key).delete(`/v1/accounts/${otherAccount}`).expect(200);
    expect((await tagsOf()).find((listed) => listed.id === tag.id)?.usageCount).toBe(1);
  });
});

describe('bulk apply', () => {
  it('adds and removes across transactions, skips ids that are not yours, and changes nothing when repeated', async () => {
    const [add, remove] = [await newTag(), await newTag()];
    const txs = [await newTransaction({ tagIds: [remove.id] }), await newTransaction(), await newTransaction({ tagIds: [add.id] })];
    const stranger = await t.newUser();
    const strangerAccount = (await t.as(stranger.key).post('/v1/accounts', { name: 'Theirs', type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id;
    const theirs = (await t.as(stranger.key).post('/v1/transactions', { accountId: strangerAccount, amount: -1, date: '2026-11-20', name: 'Theirs' }).expect(201)).body.id;
    const body = { transactionIds: [...txs.map((tx) => tx.id), theirs, randomUUID()], addTagIds: [add.id], removeTagIds: [remove.id] };
    expect((await t.as(key).post('/v1/tags/bulk-apply', body).expect(200)).body).toEqual({ success: true, updatedCount: 2 });
    for (const tx of txs) expect((await transaction(tx.id)).tagIds).toEqual([add.id]);
    expect((await transaction(txs[0].id)).lockedFields).toEqual(['tags']);
    expect((await t.as(key).post('/v1/tags/bulk-apply', body).expect(200)).body).toEqual({ success: true, updatedCount: 0 });
    expect((await t.as(stranger.key).get(`/v1/transactions/${theirs}`).expect(200)).body.tagIds).toEqual([]);
  });

  it('validates its body', async () => {
    const tx = await newTransaction();
    const archived = await newTag();
    await t.as(key).patch(`/v1/tags/${archived.id}`, { archived: true }).expect(200);
    await t.as(key).post('/v1/tags/bulk-apply', { transactionIds: [], addTagIds: [archived.id] }).expect(422);
    await t.as(key).post('/v1/tags/bulk-apply', { transactionIds: [tx.id] }).expect(422);
    await t.as(key).post('/v1/tags/bulk-apply', { transactionIds: Array.from({ length: 1001 }, () => randomUUID()), removeTagIds: [archived.id] }).expect(422);
    const refused = await t.as(key).post('/v1/tags/bulk-apply', { transactionIds: [tx.id], addTagIds: [randomUUID(), archived.id] }).expect(422);
    expect(refused.body.error.issues.map((issue: { path: unknown[] }) => issue.path)).toEqual([['addTagIds', 0], ['addTagIds', 1]]);
    expect((await t.as(key).post('/v1/tags/bulk-apply', { transactionIds: [tx.id], removeTagIds: [archived.id] }).expect(200)).body.updatedCount).toBe(0);
  });
});

describe('deleting a tag', () => {
  it('takes it off every transaction with a system entry in each activity log, and lists never show it', async () => {
    const [doomed, kept] = [await newTag(), await newTag()];
    const txs = await Promise.all(Array.from({ length: 6 }, () => newTransaction({ tagIds: [doomed.id, kept.id] })));
    await t.as(key).delete(`/v1/tags/${doomed.id}`).expect(204);
    // At once, before the fan-out has necessarily run: the read side leaves the deleted tag out.
    for (const tx of txs) expect((await transaction(tx.id)).tagIds).toEqual([kept.id]);
    expect((await t.as(key).get(`/v1/transactions?tagId=${doomed.id}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Tag not found' });
    await eventually(async () => {
      for (const tx of txs) expect((await activity(tx.id)).filter((event) => event.actor === 'system')).toEqual([
        { kind: 'edited', field: 'tags', oldValue: [doomed.id, kept.id].sort(), newValue: [kept.id], actor: 'system', id: expect.any(String), createdAt: expect.any(String), requestId: expect.any(String), correlationId: expect.any(String), ruleId: null },
      ]);
      const rows = await t.runtime.database.db.selectFrom('transactions').select('tag_ids').where('id', 'in', txs.map((tx) => tx.id)).execute();
      expect(rows.every((row) => row.tag_ids.length === 1 && row.tag_ids[0] === kept.id)).toBe(true);
    });
  });

  it('resumes a fan-out stopped part-way and finishes it, removing the tag from each transaction exactly once', async () => {
    const tag = await newTag();
    const txs = await Promise.all(Array.from({ length: 8 }, () => newTransaction({ tagIds: [tag.id] })));
    // The deletion without its HTTP operation, so that only this test runs the job.
    const { eventStore } = t.runtime;
    const history = await eventStore.readStream(tagStreamId(tag.id));
    await eventStore.appendToStream(
      tagStreamId(tag.id),
      [{ type: 'TagDeleted', data: { tagId: tag.id }, metadata: { userId, actor: 'user', requestId: 'crash-test', causationId: 'crash-test', correlationId: 'crash-test', occurredAt: new Date().toISOString(), schemaVersion: 1 } }],
      history[history.length - 1].revision,
    );
    let handled = 0;
    const crashing = tagDeletionJob(t.runtime, {
      afterTransaction: () => {
        handled += 1;
        if (handled === 3) throw new Error('crash');
      },
    });
    await expect(crashing.handle({ userId, tagId: tag.id })).rejects.toThrow('crash');
    await tagDeletionJob(t.runtime).handle({ userId, tagId: tag.id });
    await tagDeletionJob(t.runtime).handle({ userId, tagId: tag.id });
    for (const tx of txs) {
      const removals = (await eventStore.readStream(`transaction-${tx.id}`)).filter((event) => event.type === 'TagRemoved');
      expect(removals).toHaveLength(1);
      expect(removals[0].metadata).toMatchObject({ actor: 'system', causationId: history.length > 0 ? expect.any(String) : undefined });
    }
    await eventually(async () => {
      const rows = await t.runtime.database.db.selectFrom('transactions').select('tag_ids').where('id', 'in', txs.map((tx) => tx.id)).execute();
      expect(rows.every((row) => row.tag_ids.length === 0)).toBe(true);
    });
  });

  it('leaves no transaction pointing at a tag deleted while a bulk apply runs', async () => {
    for (let round = 0; round < 3; round += 1) {
      const tag = await newTag();
      const txs = await Promise.all(Array.from({ length: 40 }, () => newTransaction()));
      const [bulk, deletion] = await Promise.all([
        t.as(key).post('/v1/tags/bulk-apply', { transactionIds: txs.map((tx) => tx.id), addTagIds: [tag.id] }),
        new Promise((resolve) => setTimeout(resolve, round * 15)).then(() => t.as(key).delete(`/v1/tags/${tag.id}`).expect(204)),
      ]);
      expect([200, 422]).toContain(bulk.status);
      expect(deletion.status).toBe(204);
      await eventually(async () => {
        for (const tx of txs) {
          const events = await t.runtime.eventStore.readStream(`transaction-${tx.id}`);
          const carries = events.reduce((has, event) => (event.type === 'TagApplied' ? true : event.type === 'TagRemoved' ? false : has), false);
          expect([tx.id, carries]).toEqual([tx.id, false]);
        }
        const rows = await t.runtime.database.db.selectFrom('transactions').select('tag_ids').where('id', 'in', txs.map((tx) => tx.id)).execute();
        expect(rows.filter((row) => row.tag_ids.includes(tag.id))).toEqual([]);
      });
    }
  });
});

async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
