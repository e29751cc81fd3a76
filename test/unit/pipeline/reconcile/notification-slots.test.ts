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

  it('refuses a limit below one', () => {
    expect(() => new NotificationSlots(0, () => undefined)).toThrow('positive integer');
  });
});
