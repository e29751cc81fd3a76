import { CliError, EXIT } from './exit-codes';

/**
 * The local stand-ins (infra/) and their libraries are development tools: the production image and
 * `npm ci --omit=dev` leave them out. A command that needs them loads them through here, so such an
 * install answers with one line saying what it lacks instead of a require stack.
 */
export async function loadDevelopmentModule<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isModuleNotFound(err)) throw err;
    throw new CliError(
      `opstream ${command} needs a development install: the local stand-ins are not part of this one (a production image or a production-only npm install). Run it from a clone of the repository after npm install.`,
      EXIT.usage,
      { cause: err },
    );
  }
}

function isModuleNotFound(err: unknown): boolean {
  const code = err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
}
