import { NotificationSlots } from '../../../../src/pipeline/reconcile/notification-slots';

describe('NotificationSlots', () => {
  it('gives out at most `limit` slots; each one freed wakes the operation that waited longest', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(2, (id) => woken.push(id));
    expect([slots.tryTake('a'), slots.tryTake('b'), slots.tryTake('c'), slots.tryTake('d')]).toEqual([true, true, false, false]);
    expect([slots.busy, slots.waitingCount]).toEqual([2, 2]);
    slots.release();
    expect(woken).toEqual(['c']);
    expect(slots.tryTake('c')).toBe(true);
    slots.forget('d');
    slots.release();
    slots.release();
    expect(woken).toEqual(['c']);
    expect([slots.busy, slots.waitingCount]).toEqual([0, 0]);
  });

  it('wakes first attempts before retries', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(1, (id) => woken.push(id));
    slots.tryTake('busy');
    slots.tryTake('retry-1', true);
    slots.tryTake('first-1');
    slots.tryTake('retry-2', true);
    slots.tryTake('first-2');
    for (let i = 0; i < 4; i++) slots.release();
    expect(woken).toEqual(['first-1', 'first-2', 'retry-1', 'retry-2']);
  });

  it('keeps the place of a woken operation that finds the slot taken by another', () => {
    const woken: string[] = [];
    const slots = new NotificationSlots(1, (id) => woken.push(id));
    slots.tryTake('busy');
    slots.tryTake('a');
    slots.tryTake('b');
    slots.release(); // wakes a; before it comes, another takes the slot
    expect(slots.tryTake('someone-else')).toBe(true);
    expect(slots.tryTake('a')).toBe(false);
    slots.release();
    expect(woken).toEqual(['a', 'a']);
  });

  it('refuses a limit below one', () => {
    expect(() => new NotificationSlots(0, () => undefined)).toThrow('positive integer');
  });
});
