/** A setting is wrong: start-up stops with one line naming the setting and how to fix it. */
export class ConfigError extends Error {
  /** EX_CONFIG (78), as the CLI's exit codes name it. */
  readonly exitCode = 78;
  readonly retriable = false;
  constructor(
    message: string,
    readonly setting?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}
