/** Loopback names and addresses: where a stand-in listens unless told otherwise, so that nothing it serves leaves this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
