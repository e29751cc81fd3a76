/** Resolves with the first SIGINT/SIGTERM; a second one exits at once (a stuck shutdown never traps the operator). */
export function waitForSignal(onSecond: () => void = () => process.exit(130)): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      process.once('SIGINT', onSecond);
      process.once('SIGTERM', onSecond);
      resolve(signal);
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
