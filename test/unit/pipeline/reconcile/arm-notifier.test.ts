import { createServer, type IncomingMessage, type Server } from 'http';
import type { AddressInfo } from 'net';
import { ArmNotifier } from '../../../../src/pipeline/reconcile/arm-notifier';
import type { Operation } from '../../../../src/domain/types';
import { waitFor } from '../../../helpers/wait-for';

/** An ARM endpoint that records each request and answers only when told to. */
async function slowArm(): Promise<{ url: string; seen: IncomingMessage[]; answerAll: () => void; close: () => Promise<void> }> {
  const seen: IncomingMessage[] = [];
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    waiting.push(() => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const operation = (notificationUri: string): Operation =>
  ({
    id: 'op-1',
    operationId: '/subscriptions/s/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/op-1',
    partitionKey: 's',
    request: 'Create',
    externalId: '/subscriptions/s/resourcegroups/rg/providers/microsoft.redhatopenshift/hcpopenshiftclusters/c',
    status: 'Succeeded',
    startTime: '2026-12-01T00:00:00.000Z',
    lastTransitionTime: '2026-12-01T00:00:05.000Z',
    notificationUri,
  }) as unknown as Operation;

describe('ArmNotifier', () => {
  it('names the delivering instance in User-Agent', async () => {
    const arm = await slowArm();
    try {
      const delivery = new ArmNotifier({ userAgent: 'opstream/9.9.9 (replica-0#abcd1234)' }).deliver(operation(`${arm.url}/notify/op-1`));
      await waitFor(() => arm.seen.length === 1, { timeoutMs: 10_000, describe: () => 'the request to reach ARM' });
      arm.answerAll();
      await delivery;
      expect(arm.seen[0]?.headers['user-agent']).toBe('opstream/9.9.9 (replica-0#abcd1234)');
    } finally {
      await arm.close();
    }
  });

  it('lets a request already sent finish when its signal aborts (aborting would leave ARM\'s receipt unknown)', async () => {
    const arm = await slowArm();
    try {
      const fence = new AbortController();
      const delivery = new ArmNotifier().deliver(operation(`${arm.url}/notify/op-1`), fence.signal);
      await waitFor(() => arm.seen.length === 1, { timeoutMs: 10_000, describe: () => 'the request to reach ARM' });
      fence.abort(new Error('lease lost'));
      arm.answerAll();
      await expect(delivery).resolves.toBeUndefined();
      expect(arm.seen).toHaveLength(1);
    } finally {
      await arm.close();
    }
  });

  it('sends nothing once its signal has aborted', async () => {
    const arm = await slowArm();
    try {
      const fence = new AbortController();
      fence.abort(new Error('lease lost'));
      await expect(new ArmNotifier().deliver(operation(`${arm.url}/notify/op-1`), fence.signal)).rejects.toThrow('lease lost');
      expect(arm.seen).toHaveLength(0);
    } finally {
      await arm.close();
    }
  });
});
