import { homedir } from 'os';
import { join } from 'path';

/** Where `opstream start` keeps the local Cosmos emulator's journal (`$XDG_DATA_HOME` respected). */
export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'opstream', 'cosmos');
}
