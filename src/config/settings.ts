import schema from '../../schemas/config.schema.json';

/**
 * The settings table, derived from `schemas/config.schema.json` so names cannot drift: each leaf
 * `a.bName` is the environment variable `OPSTREAM_A_B_NAME` and the flag `--a-b-name` (a boolean
 * one is a switch, `--a-b-name` / `--no-a-b-name`, and its variable takes true/false).
 */
export interface SettingInfo {
  path: string[];
  key: string;
  env: string;
  flag: string;
  /** The `--no-` form of a boolean setting's switch (undefined for other types). */
  negatedFlag?: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  default?: unknown;
  secret: boolean;
}

interface SchemaNode {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  properties?: Record<string, SchemaNode>;
}

const SECRET_LEAVES = new Set(['key', 'token', 'connectionString']);

export const kebab = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

function walk(node: SchemaNode, path: string[], out: SettingInfo[]): void {
  if (node.properties) {
    for (const [name, child] of Object.entries(node.properties)) walk(child, [...path, name], out);
    return;
  }
  const key = path.join('.');
  const dashed = path.map(kebab).join('-');
  const type = (node.type ?? 'string') as SettingInfo['type'];
  out.push({
    path,
    key,
    env: `OPSTREAM_${dashed.replace(/-/g, '_').toUpperCase()}`,
    flag: `--${dashed}`,
    ...(type === 'boolean' ? { negatedFlag: `--no-${dashed}` } : {}),
    type,
    description: node.description,
    default: node.default,
    secret: SECRET_LEAVES.has(path[path.length - 1]),
  });
}

export const SETTINGS: readonly SettingInfo[] = (() => {
  const out: SettingInfo[] = [];
  walk(schema as SchemaNode, [], out);
  return out;
})();

export const configSchema = schema;
