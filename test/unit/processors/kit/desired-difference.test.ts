import { desiredDifference } from '../../../../processors/kit/desired-difference';
import { UpdateCooldown } from '../../../../processors/kit/update-cooldown';

/** The pure diff an Update sends (processors/kit/desired-difference.ts) and the re-send pace (update-cooldown.ts). */
describe('desiredDifference', () => {
  const rows: Array<{ name: string; desired: object; held: object; whole?: string[]; patch: object | undefined }> = [
    { name: 'equal states: nothing to send', desired: { a: 1, b: { c: [1, 2] } }, held: { b: { c: [1, 2] }, a: 1 }, patch: undefined },
    { name: 'a field left undefined is not opstream’s to set', desired: { a: undefined, b: 2 }, held: { a: 5, b: 2 }, patch: undefined },
    { name: 'a field CS lacks is sent', desired: { a: 1 }, held: {}, patch: { a: 1 } },
    {
      name: 'objects: only the fields that differ',
      desired: { o: { x: 1, y: 2 } },
      held: { o: { x: 1, y: 3, z: 9 } },
      patch: { o: { y: 2 } },
    },
    { name: 'arrays are sent whole', desired: { l: [1, 2, 3] }, held: { l: [1, 2] }, patch: { l: [1, 2, 3] } },
    {
      name: 'a path in `whole` is sent whole (a removed key goes)',
      desired: { labels: { a: '1' } },
      held: { labels: { a: '1', b: '2' } },
      whole: ['labels'],
      patch: { labels: { a: '1' } },
    },
    {
      name: 'a nested path in `whole`',
      desired: { api: { access: { mode: 'all' } } },
      held: { api: { listening: 'external', access: { mode: 'list', values: ['x'] } } },
      whole: ['api.access'],
      patch: { api: { access: { mode: 'all' } } },
    },
    { name: 'an object where CS holds a scalar is sent whole', desired: { o: { x: 1 } }, held: { o: 'x' }, patch: { o: { x: 1 } } },
  ];
  it.each(rows)('$name', ({ desired, held, whole, patch }) => {
    expect(desiredDifference(desired, held, whole)).toEqual(patch);
  });

  it('compares values, not where the objects were made', () => {
    const held = JSON.parse('{"p":{"unit":"minutes","value":30}}') as object;
    expect(desiredDifference({ p: Object.assign(Object.create(null) as object, { unit: 'minutes', value: 30 }) }, held)).toBeUndefined();
  });
});

describe('UpdateCooldown', () => {
  it('waits the cooldown from the later of the documents’ last PATCH and this instance’s own', () => {
    let now = 100_000;
    const cooldown = new UpdateCooldown(60_000, () => now);
    expect(cooldown.remainingMs('/c/1', now - 60_000)).toBe(0);
    expect(cooldown.remainingMs('/c/1', now - 10_000)).toBe(50_000);
    cooldown.record('/c/1');
    now += 1_000;
    expect(cooldown.remainingMs('/c/1', 0)).toBe(59_000);
    expect(cooldown.remainingMs('/c/2', 0)).toBe(0);
    now += 59_000;
    expect(cooldown.remainingMs('/c/1', 0)).toBe(0);
  });
});
