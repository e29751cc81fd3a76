import { readFileSync } from 'fs';
import { join } from 'path';

/** opstream's version, from package.json (found from both src/ and dist/src/). */
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(join(__dirname, rel), 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const version = readVersion();
