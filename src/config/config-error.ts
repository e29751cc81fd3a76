import { EXIT } from '../cli/exit-codes';

/** A setting is wrong: start-up stops with one line naming the setting and how to fix it. */
export class ConfigError extends Error {
  readonly exitCode = EXIT.config;
  readonly retriable = false;
  constructor(
    message: string,
    readonly setting?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}
