import { startNotificationReceiver } from '@opstream/frontend-simulator';

describe('ARM notification receiver', () => {
  it('resolves waiters with the notification POSTed for their operation', async () => {
    const receiver = await startNotificationReceiver();
    try {
      const waiting = receiver.waitForNotification('op-1', 10_000);
      const res = await fetch(`${receiver.url}/notify/op-1`, { method: 'POST', body: JSON.stringify({ status: 'Succeeded' }) });
      expect(res.status).toBe(200);
      expect(await waiting).toMatchObject({ operation: 'op-1', body: { status: 'Succeeded' } });
      expect(receiver.countFor('op-1')).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('answers the next N POSTs of an operation with the status asked, then takes the next one', async () => {
    const receiver = await startNotificationReceiver();
    try {
      receiver.failNext('op-2', 2, 500);
      const post = (id: string): Promise<number> =>
        fetch(`${receiver.url}/notify/${id}`, { method: 'POST', body: JSON.stringify({ status: 'Failed' }) }).then((r) => r.status);
      expect([await post('op-2'), await post('other'), await post('op-2'), await post('op-2')]).toEqual([500, 200, 500, 200]);
      expect([receiver.refusedFor('op-2'), receiver.countFor('op-2'), receiver.refusedFor('other')]).toEqual([2, 1, 0]);
    } finally {
      await receiver.close();
    }
  });

  it('rejects pending waiters when it closes, so nothing holds the process open until their timeouts', async () => {
    const receiver = await startNotificationReceiver();
    const pending = receiver.waitForNotification('never', 10 * 60_000);
    await receiver.close();
    await expect(pending).rejects.toThrow('notification receiver closed');
    await expect(receiver.waitForNotification('later')).rejects.toThrow('notification receiver closed');
  });
});
