import { createServer, connect, type AddressInfo, type Socket } from 'net';

/**
 * A TCP forward on 127.0.0.1, as `kubectl port-forward` or a pod's address give one: it listens on a
 * port of its own (chosen by the system) and passes every connection to `target` once set. `cut()`
 * makes its address unreachable while it keeps the port (a connection is closed as soon as it is
 * accepted, open ones too), `resume()` passes connections again; `close()` frees the port (then a
 * connection is refused).
 */
export interface LoopbackForward {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Where connections go from now on (`host:port`). */
  setTarget(hostPort: string): void;
  cut(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startLoopbackForward(target?: string): Promise<LoopbackForward> {
  let to = target;
  let open = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!open || !to) {
      client.destroy();
      return;
    }
    const [host, port] = splitHostPort(to);
    const upstream = connect({ host, port });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const dropAll = (): void => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setTarget: (hostPort) => void (to = hostPort),
    cut: () => {
      open = false;
      dropAll();
    },
    resume: () => void (open = true),
    close: async () => {
      open = false;
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitHostPort(hostPort: string): [string, number] {
  const i = hostPort.lastIndexOf(':');
  return [hostPort.slice(0, i).replace(/^\[|\]$/g, ''), Number(hostPort.slice(i + 1))];
}
