import { createRequire } from 'node:module';
import type * as TlsModule from 'node:tls';

/**
 * Makes TLS clients of this process (the Service Bus SDK's rhea connections) trust `pem` besides the
 * system's roots, until the returned function is called. A child process gets the same from
 * NODE_EXTRA_CA_CERTS; Node 20 reads that variable only at start and has no API to add a root later,
 * and `@azure/service-bus` takes no `ca` option, so in-process tests wrap `tls.connect` of the real
 * module (the one rhea calls at connect time) to pass `ca`. Certificate checks stay on.
 */
export function trustCertificate(pem: string): () => void {
  const tls = createRequire(__filename)('node:tls') as typeof TlsModule;
  const original = tls.connect;
  const ca = [...tls.rootCertificates, pem];
  const patched = (...args: unknown[]): TlsModule.TLSSocket => {
    const options = args.find((a): a is TlsModule.ConnectionOptions => typeof a === 'object' && a !== null);
    if (options && options.ca === undefined) options.ca = ca;
    return (original as (...a: unknown[]) => TlsModule.TLSSocket)(...args);
  };
  Object.defineProperty(tls, 'connect', { value: patched, configurable: true, writable: true });
  return () => Object.defineProperty(tls, 'connect', { value: original, configurable: true, writable: true });
}
