import * as tls from 'node:tls';
import { Duplex } from 'node:stream';

/**
 * One port, several protocols, told apart by a connection's first byte: a TLS handshake (0x16) is
 * answered with the stand-in's certificate and the decrypted stream is routed again; an HTTP method's
 * first letter goes to the administration API (what `ServiceBusAdministrationClient` sends to
 * `https://<endpoint host:port>`, the same endpoint as AMQP); everything else goes to AMQP (rhea then
 * refuses what is not AMQP, as before).
 */
export interface Routes {
  amqp(socket: Duplex): void;
  http(socket: Duplex): void;
  /** The certificate TLS connections are answered with (made on first use). */
  certificate(): { cert: string; key: string };
}

const TLS_HANDSHAKE = 0x16;
const HTTP_FIRST = new Set([...'GPDHO'].map((c) => c.charCodeAt(0)));

export class ProtocolRouter {
  private tlsServer: tls.Server | undefined;

  constructor(private readonly routes: Routes) {}

  /** `tlsOnly`: a listener for AMQPS, where anything but a TLS handshake ends the connection. */
  route(socket: Duplex, tlsOnly: boolean): void {
    firstChunk(socket, (chunk) => {
      const first = chunk[0];
      if (first === TLS_HANDSHAKE) return this.handshake(socket);
      if (tlsOnly) return void socket.destroy();
      if (HTTP_FIRST.has(first)) return this.handOver(socket, this.routes.http);
      this.handOver(socket, this.routes.amqp);
    });
  }

  private handOver(socket: Duplex, to: (s: Duplex) => void): void {
    to(socket);
    socket.resume();
  }

  /** TLS over the raw socket: wrapped as a JS stream so that the byte read to route it is seen by the handshake. */
  private handshake(socket: Duplex): void {
    this.tlsServer ??= this.createTlsServer();
    this.tlsServer.emit('connection', Duplex.from({ readable: socket, writable: socket }));
    socket.resume();
  }

  private createTlsServer(): tls.Server {
    const server = tls.createServer(this.routes.certificate());
    server.on('secureConnection', (s: tls.TLSSocket) =>
      firstChunk(s, (chunk) => this.handOver(s, HTTP_FIRST.has(chunk[0]) ? this.routes.http : this.routes.amqp)),
    );
    // a client that does not trust the certificate, or drops the handshake, ends that connection only
    server.on('tlsClientError', (_err: Error, s: tls.TLSSocket) => s.destroy());
    return server;
  }
}

/** Calls `then` with a connection's first bytes, put back in front of the stream (paused) for whoever reads it next. */
function firstChunk(socket: Duplex, then: (chunk: Buffer) => void): void {
  const onData = (chunk: Buffer): void => {
    socket.off('error', onError);
    socket.pause();
    socket.unshift(chunk);
    then(chunk);
  };
  const onError = (): void => {
    socket.off('data', onData);
    socket.destroy();
  };
  socket.once('data', onData);
  socket.once('error', onError);
}
