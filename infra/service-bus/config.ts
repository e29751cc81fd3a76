import { SqlAction, SqlFilterError, SqlPredicate, compileSqlAction, compileSqlFilter } from './sql-filter';

export { compileSqlFilter };

/**
 * Entities declared in the official Service Bus emulator's Config.json format:
 * `{"UserConfig": {"Namespaces": [{"Name", "Queues": [{"Name", "Properties"}], "Topics": [{"Name",
 * "Properties", "Subscriptions": [{"Name", "Properties", "Rules": [{"Name", "Properties"}]}]}]}]}}`.
 * Durations are ISO 8601 (`PT1M`, `P14D`).
 */
export interface EntitySettings {
  lockDurationMs: number;
  maxDeliveryCount: number;
  /** Infinity when unbounded */
  defaultTtlMs: number;
  deadLetterOnExpiration: boolean;
  requiresSession: boolean;
  requiresDuplicateDetection: boolean;
  duplicateWindowMs: number;
  /** Largest message a sender may send to the entity (the link's max-message-size). */
  maxMessageSizeBytes: number;
}

export interface CorrelationFilterSpec {
  ContentType?: string;
  CorrelationId?: string;
  Label?: string;
  MessageId?: string;
  ReplyTo?: string;
  ReplyToSessionId?: string;
  SessionId?: string;
  To?: string;
  Properties?: Record<string, unknown>;
}

export interface RuleDef {
  name: string;
  kind: 'sql' | 'correlation' | 'true' | 'false';
  sql?: string;
  compiled?: SqlPredicate;
  correlation?: CorrelationFilterSpec;
  /** SQL rule action (`SET`/`REMOVE` on user properties) */
  action?: string;
  compiledAction?: SqlAction;
}

export interface QueueDef {
  name: string;
  settings: EntitySettings;
}

export interface SubscriptionDef extends QueueDef {
  rules: RuleDef[];
}

export interface TopicDef {
  name: string;
  settings: EntitySettings;
  subscriptions: SubscriptionDef[];
}

export interface NamespaceDef {
  name: string;
  queues: QueueDef[];
  topics: TopicDef[];
}

export class ConfigError extends Error {}

export const DEFAULTS: EntitySettings = {
  lockDurationMs: 60_000,
  maxDeliveryCount: 10,
  defaultTtlMs: Infinity,
  deadLetterOnExpiration: false,
  requiresSession: false,
  requiresDuplicateDetection: false,
  duplicateWindowMs: 10 * 60_000,
  maxMessageSizeBytes: 256 * 1024,
};

/** ISO 8601 duration → milliseconds (`P10675199DT2H48M5.4775807S`, the SDK's "max", is Infinity). */
export function parseDuration(text: string): number {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text.trim());
  if (!m || text.trim() === 'P' || text.trim().endsWith('T'))
    throw new ConfigError(`${JSON.stringify(text)} is not an ISO 8601 duration such as PT1M`);
  const [d, h, mi, s] = m.slice(1).map((x) => (x ? Number(x) : 0));
  const ms = ((d * 24 + h) * 60 + mi) * 60_000 + s * 1000;
  return d >= 10675199 ? Infinity : Math.round(ms);
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function arr(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${what} must be an array`);
  return v;
}

function name(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '' || v.includes('$')) throw new ConfigError(`${what}.Name must be a non-empty string without '$'`);
  return v;
}

function settings(raw: unknown, what: string): EntitySettings {
  const p = raw === undefined ? {} : obj(raw, `${what}.Properties`);
  const s: EntitySettings = { ...DEFAULTS };
  const dur = (key: string): number | undefined => {
    const v = p[key];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new ConfigError(`${what}.Properties.${key} must be an ISO 8601 duration string`);
    return parseDuration(v);
  };
  const bool = (key: string): boolean | undefined => {
    const v = p[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') throw new ConfigError(`${what}.Properties.${key} must be true or false`);
    return v;
  };
  s.lockDurationMs = dur('LockDuration') ?? s.lockDurationMs;
  s.defaultTtlMs = dur('DefaultMessageTimeToLive') ?? s.defaultTtlMs;
  s.duplicateWindowMs = dur('DuplicateDetectionHistoryTimeWindow') ?? s.duplicateWindowMs;
  s.deadLetterOnExpiration = bool('DeadLetteringOnMessageExpiration') ?? s.deadLetterOnExpiration;
  s.requiresSession = bool('RequiresSession') ?? s.requiresSession;
  s.requiresDuplicateDetection = bool('RequiresDuplicateDetection') ?? s.requiresDuplicateDetection;
  const mdc = p.MaxDeliveryCount;
  if (mdc !== undefined) {
    if (typeof mdc !== 'number' || !Number.isInteger(mdc) || mdc < 1)
      throw new ConfigError(`${what}.Properties.MaxDeliveryCount must be a positive integer`);
    s.maxDeliveryCount = mdc;
  }
  const maxKb = p.MaxMessageSizeInKilobytes;
  if (maxKb !== undefined) {
    // The service takes 1024-102400 (Premium); the stand-in takes any size, so a test can make a message too large cheaply.
    if (typeof maxKb !== 'number' || !Number.isInteger(maxKb) || maxKb < 1)
      throw new ConfigError(`${what}.Properties.MaxMessageSizeInKilobytes must be a positive integer`);
    s.maxMessageSizeBytes = maxKb * 1024;
  }
  if (!(s.lockDurationMs > 0)) throw new ConfigError(`${what}.Properties.LockDuration must be positive`);
  for (const key of ['ForwardTo', 'ForwardDeadLetteredMessagesTo']) {
    if (typeof p[key] === 'string' && p[key] !== '')
      throw new ConfigError(`${what}.Properties.${key} is not supported by this stand-in (see infra/service-bus/README.md)`);
  }
  return s;
}

/** A rule in Config.json's shape (`{Name, Properties: {FilterType, SqlFilter | CorrelationFilter, Action}}`). */
export function parseRule(raw: unknown, what: string): RuleDef {
  const r = obj(raw, what);
  const n = name(r.Name, what);
  const p = obj(r.Properties ?? {}, `${what}.Properties`);
  const type = String(p.FilterType ?? 'Sql').toLowerCase();
  let action: Pick<RuleDef, 'action' | 'compiledAction'> = {};
  if (p.Action !== undefined && p.Action !== null) {
    const a = obj(p.Action, `${what}.Properties.Action`);
    if (typeof a.SqlExpression === 'string' && a.SqlExpression.trim() !== '') {
      try {
        action = { action: a.SqlExpression, compiledAction: compileSqlAction(a.SqlExpression) };
      } catch (err) {
        if (err instanceof SqlFilterError)
          throw new ConfigError(`${what}: Action.SqlExpression ${JSON.stringify(a.SqlExpression)}: ${err.message}`);
        throw err;
      }
    }
  }
  if (type === 'correlation') {
    const c = obj(p.CorrelationFilter ?? {}, `${what}.Properties.CorrelationFilter`);
    return { name: n, kind: 'correlation', correlation: c as CorrelationFilterSpec, ...action };
  }
  if (type === 'sql') {
    const f = obj(p.SqlFilter ?? {}, `${what}.Properties.SqlFilter`);
    const expr = f.SqlExpression;
    if (typeof expr !== 'string') throw new ConfigError(`${what}.Properties.SqlFilter.SqlExpression must be a string`);
    try {
      return { name: n, kind: 'sql', sql: expr, compiled: compileSqlFilter(expr), ...action };
    } catch (err) {
      if (err instanceof SqlFilterError) throw new ConfigError(`${what}: SqlExpression ${JSON.stringify(expr)}: ${err.message}`);
      throw err;
    }
  }
  if (type === 'truefilter' || type === 'true') return { name: n, kind: 'true', ...action };
  if (type === 'falsefilter' || type === 'false') return { name: n, kind: 'false', ...action };
  throw new ConfigError(`${what}.Properties.FilterType must be Sql or Correlation`);
}

/** Parses the official emulator's Config.json (the whole file, or just its UserConfig). */
export function parseConfig(input: unknown): NamespaceDef {
  if (input === undefined) return { name: 'sbemulatorns', queues: [], topics: [] };
  const root = obj(input, 'config');
  const user = obj(root.UserConfig ?? root, 'UserConfig');
  const namespaces = arr(user.Namespaces, 'UserConfig.Namespaces');
  if (namespaces.length > 1) throw new ConfigError('UserConfig.Namespaces: one namespace only, as in the official emulator');
  if (namespaces.length === 0) return { name: 'sbemulatorns', queues: [], topics: [] };
  const ns = obj(namespaces[0], 'UserConfig.Namespaces[0]');
  const seen = new Set<string>();
  const unique = (n: string, what: string): void => {
    const k = n.toLowerCase();
    if (seen.has(k)) throw new ConfigError(`${what}: the name ${n} is used twice`);
    seen.add(k);
  };
  const queues = arr(ns.Queues, 'Queues').map((q, i) => {
    const qo = obj(q, `Queues[${i}]`);
    const n = name(qo.Name, `Queues[${i}]`);
    unique(n, `Queues[${i}]`);
    return { name: n, settings: settings(qo.Properties, `Queues[${i}] (${n})`) };
  });
  const topics = arr(ns.Topics, 'Topics').map((t, i) => {
    const to = obj(t, `Topics[${i}]`);
    const tn = name(to.Name, `Topics[${i}]`);
    unique(tn, `Topics[${i}]`);
    const subNames = new Set<string>();
    const subscriptions = arr(to.Subscriptions, `Topics[${i}].Subscriptions`).map((s, j) => {
      const what = `Topics[${i}] (${tn}).Subscriptions[${j}]`;
      const so = obj(s, what);
      const sn = name(so.Name, what);
      if (subNames.has(sn.toLowerCase())) throw new ConfigError(`${what}: the name ${sn} is used twice`);
      subNames.add(sn.toLowerCase());
      const rules = arr(so.Rules, `${what}.Rules`).map((r, k) => parseRule(r, `${what}.Rules[${k}]`));
      return {
        name: sn,
        settings: settings(so.Properties, `${what} (${sn})`),
        rules: rules.length ? rules : [{ name: '$Default', kind: 'true' as const }],
      };
    });
    return { name: tn, settings: settings(to.Properties, `Topics[${i}] (${tn})`), subscriptions };
  });
  return { name: typeof ns.Name === 'string' ? ns.Name : 'sbemulatorns', queues, topics };
}
