import { isUuid, nameBasedId, timeOrderedId } from './ids.js';

describe('ids', () => {
  it('makes version-7 ids that sort by the millisecond they were made in and differ within one', () => {
    const earlier = Array.from({ length: 1000 }, () => timeOrderedId(1_763_900_000_000));
    const later = timeOrderedId(1_763_900_000_001);
    expect(new Set(earlier).size).toBe(1000);
    for (const id of earlier) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect(['8', '9', 'a', 'b']).toContain(id[19]);
      expect(id < later).toBe(true);
    }
    expect(earlier[0].slice(0, 13)).toBe('019ab0a2-0700');
  });

  it('makes the same version-5 id for the same name', () => {
    const namespace = 'c3d5e7f9-2a4b-4c6d-8e0f-1a3b5c7d9e21';
    expect(nameBasedId(namespace, 'a')).toBe(nameBasedId(namespace, 'a'));
    expect(nameBasedId(namespace, 'a')).not.toBe(nameBasedId(namespace, 'b'));
    expect(nameBasedId(namespace, 'a')[14]).toBe('5');
  });
});
