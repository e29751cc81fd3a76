import { RENAMED_SETTINGS } from './renamed-settings';
import { SETTINGS, kebab, type SettingInfo } from './settings';

/**
 * Names that are almost a setting's: a file key or an `OPSTREAM_*` variable with a typo gets the
 * setting it most likely meant, so the operator fixes the name instead of wondering why a value
 * had no effect.
 */

/** Optimal string alignment distance (Levenshtein plus transpositions): `databse` → `database` is 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate closest to `name` (case-insensitive), if close enough to be a typo of it: at most
 * 2 edits, or 30 % of the name's length for long names. Ties go to the first candidate.
 */
export function nearest(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length * 0.3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Groups (`cosmos`) and settings (`cosmos.database`): what a file key may be. */
const FILE_KEYS = [...new Set(SETTINGS.flatMap((s) => s.path.map((_, i) => s.path.slice(0, i + 1).join('.'))))];

/**
 * The known key a file's unknown `key` (`cosmos.databse`, `database`) most likely meant: a near
 * spelling, or else the one setting whose last part it names (`database` → `cosmos.database`); of
 * several, the one with a default (`leases.database` falls back to `cosmos.database`, which is meant).
 */
export function nearestFileKey(key: string): string | undefined {
  const close = nearest(key, FILE_KEYS);
  if (close) return close;
  const leaf = key.split('.').pop()?.toLowerCase();
  const sameLeaf = SETTINGS.filter((s) => s.path[s.path.length - 1].toLowerCase() === leaf);
  if (sameLeaf.length === 1) return sameLeaf[0].key;
  const withDefault = sameLeaf.filter((s) => s.default !== undefined);
  return withDefault.length === 1 ? withDefault[0].key : undefined;
}

/**
 * Variables with the prefix that opstream reads although they are not settings (so they draw no
 * warning), with who reads them. Keys, not strings: the hints test reads every string as a hint.
 */
const OTHER_VARIABLES = Object.freeze({
  OPSTREAM_CONFIG: 'src/config/load-config.ts: names the configuration file when no flag does',
  OPSTREAM_LOG_SILENT: 'src/logging/logger.ts: 1 silences the logs (the CLI tests set it)',
  OPSTREAM_BUILD_COMMIT: 'src/version.ts: the commit the image was built from',
  OPSTREAM_CS_SIMULATOR_TOKEN: 'opstream emulator clusters-service',
  OPSTREAM_CS_SIMULATOR_SERVICE_BUS: 'opstream emulator clusters-service',
  OPSTREAM_TEST_LOGS: 'test/helpers: 1 shows the logs of in-process instances',
});

export interface UnknownVariable {
  name: string;
  /** The setting it most likely meant, if any is close. */
  nearest?: SettingInfo;
}

const PREFIX = 'OPSTREAM_';

/**
 * Every set `OPSTREAM_*` variable that names no setting (and is not one opstream reads otherwise,
 * nor a renamed setting's old name, which start-up refuses on its own), with the nearest setting.
 * Such a variable is ignored: a typo would silently leave the default in force.
 */
export function unknownVariables(env: NodeJS.ProcessEnv): UnknownVariable[] {
  const known = new Set<string>([
    ...SETTINGS.map((s) => s.env),
    ...Object.keys(OTHER_VARIABLES),
    ...RENAMED_SETTINGS.map((r) => envOf(r.from)),
  ]);
  const bySuffix = new Map(SETTINGS.map((s) => [s.env.slice(PREFIX.length), s]));
  const out: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith(PREFIX) || known.has(name)) continue;
    const close = nearest(name.slice(PREFIX.length), [...bySuffix.keys()]);
    out.push({ name, nearest: close === undefined ? undefined : bySuffix.get(close) });
  }
  return out;
}

/** One line per unknown variable, naming the setting it most likely meant. */
export function unknownVariableWarning(v: UnknownVariable): string {
  const meant = v.nearest
    ? `did you mean ${v.nearest.env} (${v.nearest.key})?`
    : 'opstream config check lists every setting and its variable';
  return `environment variable ${v.name} names no setting and is ignored; ${meant}`;
}

function envOf(key: string): string {
  return `${PREFIX}${key.split('.').map(kebab).join('_').replace(/-/g, '_').toUpperCase()}`;
}
