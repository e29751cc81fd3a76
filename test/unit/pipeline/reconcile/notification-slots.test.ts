import { NotificationSlots } from '../../../../src/pipeline/reconcile/notification-slots';

describe('NotificationSlots', () => {
  it('gives out at most `limit` slots; each one freed wakes the operation that waited longest', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(2, (id) => woken.push(id));
    expect([slots.tryTake('a', 'x'), slots.tryTake('b', 'y'), slots.tryTake('c', 'x'), slots.tryTake('d', 'y')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([slots.busy, slots.waitingCount]).toEqual([2, 2]);
    slots.release('x');
    expect(woken).toEqual(['c']);
    expect(slots.tryTake('c', 'x')).toBe(true);
    slots.forget('d');
    slots.release('x');
    slots.release('y');
    expect(woken).toEqual(['c']);
    expect([slots.busy, slots.waitingCount]).toEqual([0, 0]);
  });

  it('wakes first attempts before retries', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(1, (id) => woken.push(id));
    slots.tryTake('busy', 'o');
    slots.tryTake('retry-1', 'o', true);
    slots.tryTake('first-1', 'o');
    slots.tryTake('retry-2', 'o', true);
    slots.tryTake('first-2', 'o');
    for (let i = 0; i < 4; i++) slots.release('o');
    expect(woken).toEqual(['first-1', 'first-2', 'retry-1', 'retry-2']);
  });

  it('keeps the place of a woken operation that finds the slot taken by another', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(1, (id) => woken.push(id));
    slots.tryTake('busy', 'o');
    slots.tryTake('a', 'o');
    slots.tryTake('b', 'o');
    slots.release('o'); // wakes a; before it comes, another takes the slot
    expect(slots.tryTake('someone-else', 'o')).toBe(true);
    expect(slots.tryTake('a', 'o')).toBe(false);
    slots.release('o');
    expect(woken).toEqual(['a', 'a']);
  });

  it('keeps half of the slots from one origin, so an endpoint that never answers cannot hold them all', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(4, (id) => woken.push(id));
    expect(slots.perOrigin).toBe(2);
    expect(['h1', 'h2', 'h3'].map((id) => slots.tryTake(id, 'https://hangs'))).toEqual([true, true, false]);
    // ARM's own origin still finds room while the hanging one holds its half.
    expect(['a1', 'a2', 'a3'].map((id) => slots.tryTake(id, 'https://arm'))).toEqual([true, true, false]);
    slots.release('https://arm'); // wakes the waiter whose origin has room, not the first in line
    expect(woken).toEqual(['a3']);
    expect(slots.tryTake('a3', 'https://arm')).toBe(true);
    slots.release('https://hangs');
    expect(woken).toEqual(['a3', 'h3']);
  });

  it('lets a limit of one serve every origin in turn', () => {
    const slots = new NotificationSlots(1, () => undefined);
    expect(slots.perOrigin).toBe(1);
    expect([slots.tryTake('a', 'x'), slots.tryTake('b', 'y')]).toEqual([true, false]);
    slots.release('x');
    expect(slots.tryTake('b', 'y')).toBe(true);
  });

  it('refuses a limit below one', () => {
    expect(() => new NotificationSlots(0, () => undefined)).toThrow('positive integer');
  });
});
