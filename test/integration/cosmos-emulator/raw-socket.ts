import * as net from 'node:net';
import { CosmosEmulator } from '@opstream/cosmos-emulator';

/**
 * Bytes straight onto a TCP connection, for what no HTTP client would send (broken request lines,
 * lying content-lengths, truncated bodies). Resolves with the status of the first answer (0 when the
 * server closed without one) once the server closes the connection or `waitMs` passes.
 */
export function rawExchange(
  emu: Pick<CosmosEmulator, 'port'>,
  chunks: Array<string | Buffer>,
  options: { waitMs?: number; closeAfterSend?: boolean } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(emu.port, '127.0.0.1');
    const received: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text });
    };
    const timer = setTimeout(finish, options.waitMs ?? 1500);
    socket.on('data', (d: Buffer) => {
      received.push(d);
      // done as soon as one whole answer is in (the server may keep the connection open)
      const text = Buffer.concat(received).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text);
      if (end >= 0 && length && Buffer.byteLength(text, 'latin1') - end - 4 >= Number(length[1])) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      if (options.closeAfterSend) socket.end();
    });
  });
}
