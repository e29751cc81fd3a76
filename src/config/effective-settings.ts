import { configFileOf } from './load-config';
import { readFileSync } from 'fs';
import { redactString } from '../logging/redact';
import type { OpstreamConfig } from './config-types';
import { SETTINGS } from './settings';

/**
 * The settings in force and where each came from (flag > environment > file > default), for
 * `opstream config check`. Secret settings show only whether they are set; other strings go
 * through the log redaction, so a key pasted into a URL is masked too.
 */
type SettingSource = 'flag' | 'environment' | 'file' | 'default' | 'unset';

export interface EffectiveSetting {
  key: string;
  value: unknown;
  source: SettingSource;
  env: string;
  flag: string;
  secret: boolean;
}

const MASK = '***';

export function effectiveSettings(
  config: OpstreamConfig,
  sources: { file?: string; env: NodeJS.ProcessEnv; flags: Record<string, unknown> },
): EffectiveSetting[] {
  const path = configFileOf(sources.file, sources.env);
  const file = path ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  return SETTINGS.map((s) => {
    const value = at(config as unknown as Record<string, unknown>, s.path);
    const source: SettingSource =
      sources.flags[s.key] !== undefined
        ? 'flag'
        : sources.env[s.env] !== undefined && sources.env[s.env] !== ''
          ? 'environment'
          : at(file, s.path) !== undefined
            ? 'file'
            : value !== undefined
              ? 'default'
              : 'unset';
    const shown = value === undefined ? undefined : s.secret ? MASK : typeof value === 'string' ? redactString(value) : value;
    return { key: s.key, value: shown, source, env: s.env, flag: s.flag, secret: s.secret };
  });
}

function at(obj: Record<string, unknown>, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}
