import { DurationError, formatDuration, parseDuration as parseIsoDuration } from './duration';
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
  /** Infinity when never: the entity is deleted after this long without a send, a receive or a change. */
  autoDeleteOnIdleMs: number;
  /** Entity path (or `sb://host/path`) that messages, or dead-lettered messages, are forwarded to. */
  forwardTo?: string;
  forwardDeadLetteredMessagesTo?: string;
  /** Kept and reported, not enforced (see README): quota, batching, partitioning, ordering, express, status. */
  maxSizeInMegabytes: number;
  enableBatchedOperations: boolean;
  enablePartitioning: boolean;
  supportOrdering: boolean;
  enableExpress: boolean;
  deadLetteringOnFilterEvaluationExceptions: boolean;
  status: EntityStatus;
  userMetadata?: string;
  /** Entity-level shared access rules: kept and reported, not used to authorise (the namespace's keys are). */
  authorizationRules?: AuthorizationRuleSpec[];
}

/** A shared access rule on an entity, in Config.json's shape. */
export interface AuthorizationRuleSpec {
  KeyName: string;
  ClaimType: string;
  Rights: string[];
  PrimaryKey?: string;
  SecondaryKey?: string;
}

function authorizationRules(v: unknown, what: string): AuthorizationRuleSpec[] {
  return arr(v, what).map((raw, i) => {
    const r = obj(raw, `${what}[${i}]`);
    const str = (x: unknown): x is string => typeof x === 'string';
    if (!str(r.KeyName) || !Array.isArray(r.Rights) || !r.Rights.every(str))
      throw new ConfigError(`${what}[${i}] needs a KeyName and Rights (Manage, Send, Listen)`);
    const bad = r.Rights.find((x) => !['Manage', 'Send', 'Listen'].includes(x));
    if (bad !== undefined) throw new ConfigError(`${what}[${i}].Rights: '${bad}' is not Manage, Send or Listen`);
    return {
      KeyName: r.KeyName,
      ClaimType: str(r.ClaimType) ? r.ClaimType : 'SharedAccessKey',
      Rights: r.Rights,
      ...(str(r.PrimaryKey) ? { PrimaryKey: r.PrimaryKey } : {}),
      ...(str(r.SecondaryKey) ? { SecondaryKey: r.SecondaryKey } : {}),
    };
  });
}

export const ENTITY_STATUSES = ['Active', 'Disabled', 'SendDisabled', 'ReceiveDisabled'] as const;
export type EntityStatus = (typeof ENTITY_STATUSES)[number];

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
  /** `sqlParameters` given through the administration API: kept and reported, not substituted (see README). */
  filterParameters?: Record<string, unknown>;
  actionParameters?: Record<string, unknown>;
  /** when the rule was made (the administration API reports it) */
  createdAt?: number;
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
  autoDeleteOnIdleMs: Infinity,
  maxSizeInMegabytes: 1024,
  enableBatchedOperations: true,
  enablePartitioning: false,
  supportOrdering: true,
  enableExpress: false,
  deadLetteringOnFilterEvaluationExceptions: true,
  status: 'Active',
};

/**
 * The service's documented ranges, applied to what the administration API creates or updates (a
 * Config.json may go below them, so that tests can use 0.3 s locks and short windows cheaply).
 */
const PROPERTY_OF: Partial<Record<keyof EntitySettings, string>> = {
  lockDurationMs: 'LockDuration',
  duplicateWindowMs: 'DuplicateDetectionHistoryTimeWindow',
  autoDeleteOnIdleMs: 'AutoDeleteOnIdle',
  defaultTtlMs: 'DefaultMessageTimeToLive',
  maxDeliveryCount: 'MaxDeliveryCount',
};

const SERVICE_RANGES: Partial<Record<keyof EntitySettings, [number, number, string]>> = {
  lockDurationMs: [5_000, 5 * 60_000, 'between 5 seconds and 5 minutes'],
  duplicateWindowMs: [20_000, 7 * 86_400_000, 'between 20 seconds and 7 days'],
  autoDeleteOnIdleMs: [5 * 60_000, Infinity, 'at least 5 minutes'],
  defaultTtlMs: [1_000, Infinity, 'at least 1 second'],
  maxDeliveryCount: [1, 2_147_483_647, 'at least 1'],
};

/** ISO 8601 duration → milliseconds; a malformed one is a ConfigError. */
export function parseDuration(text: string): number {
  try {
    return parseIsoDuration(text);
  } catch (err) {
    if (err instanceof DurationError) throw new ConfigError(err.message);
    throw err;
  }
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

export function entityName(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '' || v.includes('$')) throw new ConfigError(`${what}.Name must be a non-empty string without '$'`);
  return v;
}

/**
 * An entity's settings from Config.json's Properties (the administration API's descriptions use the same
 * names); `base` gives the values of properties not given, `strict` applies the service's ranges.
 */
export function settings(raw: unknown, what: string, base: EntitySettings = DEFAULTS, strict = false): EntitySettings {
  const p = raw === undefined ? {} : obj(raw, `${what}.Properties`);
  const s: EntitySettings = { ...base };
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
  s.autoDeleteOnIdleMs = dur('AutoDeleteOnIdle') ?? s.autoDeleteOnIdleMs;
  s.enableBatchedOperations = bool('EnableBatchedOperations') ?? s.enableBatchedOperations;
  s.enablePartitioning = bool('EnablePartitioning') ?? s.enablePartitioning;
  s.supportOrdering = bool('SupportOrdering') ?? s.supportOrdering;
  s.enableExpress = bool('EnableExpress') ?? s.enableExpress;
  s.deadLetteringOnFilterEvaluationExceptions =
    bool('DeadLetteringOnFilterEvaluationExceptions') ?? s.deadLetteringOnFilterEvaluationExceptions;
  const text = (key: string): string | undefined => {
    const v = p[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new ConfigError(`${what}.Properties.${key} must be a string`);
    return v;
  };
  // an empty ForwardTo turns forwarding off, as on the service
  const fwd = text('ForwardTo');
  if (fwd !== undefined) s.forwardTo = fwd || undefined;
  const fwdDlq = text('ForwardDeadLetteredMessagesTo');
  if (fwdDlq !== undefined) s.forwardDeadLetteredMessagesTo = fwdDlq || undefined;
  const meta = text('UserMetadata');
  if (meta !== undefined) s.userMetadata = meta;
  const status = text('Status');
  if (status !== undefined) {
    const known = ENTITY_STATUSES.find((x) => x.toLowerCase() === status.toLowerCase());
    if (!known) throw new ConfigError(`${what}.Properties.Status must be one of ${ENTITY_STATUSES.join(', ')}`);
    s.status = known;
  }
  if (p.AuthorizationRules !== undefined)
    s.authorizationRules = authorizationRules(p.AuthorizationRules, `${what}.Properties.AuthorizationRules`);
  const mb = p.MaxSizeInMegabytes;
  if (mb !== undefined) {
    if (typeof mb !== 'number' || !Number.isInteger(mb) || mb < 1)
      throw new ConfigError(`${what}.Properties.MaxSizeInMegabytes must be a positive integer`);
    s.maxSizeInMegabytes = mb;
  }
  if (!(s.lockDurationMs > 0)) throw new ConfigError(`${what}.Properties.LockDuration must be positive`);
  if (!(s.autoDeleteOnIdleMs > 0)) throw new ConfigError(`${what}.Properties.AutoDeleteOnIdle must be positive`);
  if (strict) {
    for (const [key, [min, max, range]] of Object.entries(SERVICE_RANGES) as [keyof EntitySettings, [number, number, string]][]) {
      const v = s[key] as number;
      if (v < min || v > max) throw new ConfigError(`${what}: ${PROPERTY_OF[key] ?? key} must be ${range}.`);
    }
  }
  return s;
}

/** Settings as Config.json's Properties (what the journal keeps of an entity the administration API made). */
export function settingsToProperties(s: EntitySettings): Record<string, unknown> {
  return {
    LockDuration: formatDuration(s.lockDurationMs),
    MaxDeliveryCount: s.maxDeliveryCount,
    DefaultMessageTimeToLive: formatDuration(s.defaultTtlMs),
    DeadLetteringOnMessageExpiration: s.deadLetterOnExpiration,
    RequiresSession: s.requiresSession,
    RequiresDuplicateDetection: s.requiresDuplicateDetection,
    DuplicateDetectionHistoryTimeWindow: formatDuration(s.duplicateWindowMs),
    MaxMessageSizeInKilobytes: s.maxMessageSizeBytes / 1024,
    AutoDeleteOnIdle: formatDuration(s.autoDeleteOnIdleMs),
    ForwardTo: s.forwardTo,
    ForwardDeadLetteredMessagesTo: s.forwardDeadLetteredMessagesTo,
    MaxSizeInMegabytes: s.maxSizeInMegabytes,
    EnableBatchedOperations: s.enableBatchedOperations,
    EnablePartitioning: s.enablePartitioning,
    SupportOrdering: s.supportOrdering,
    EnableExpress: s.enableExpress,
    DeadLetteringOnFilterEvaluationExceptions: s.deadLetteringOnFilterEvaluationExceptions,
    Status: s.status,
    UserMetadata: s.userMetadata,
    AuthorizationRules: s.authorizationRules,
  };
}

/** A SqlFilter's or Action's `Parameters` (`{"@name": value}`, as the administration API's sqlParameters). */
function parametersOf(o: Record<string, unknown>, key: 'filterParameters' | 'actionParameters'): Partial<RuleDef> {
  const p = o.Parameters;
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? { [key]: { ...p } } : {};
}

/** A rule in Config.json's shape (`{Name, Properties: {FilterType, SqlFilter | CorrelationFilter, Action}}`). */
export function parseRule(raw: unknown, what: string): RuleDef {
  const r = obj(raw, what);
  // `$Default` is the one rule name with a '$' (a subscription's default rule, kept in the journal as any rule)
  const n = r.Name === '$Default' ? r.Name : entityName(r.Name, what);
  const p = obj(r.Properties ?? {}, `${what}.Properties`);
  const type = String(p.FilterType ?? 'Sql').toLowerCase();
  let action: Pick<RuleDef, 'action' | 'compiledAction'> = {};
  if (p.Action !== undefined && p.Action !== null) {
    const a = obj(p.Action, `${what}.Properties.Action`);
    if (typeof a.SqlExpression === 'string' && a.SqlExpression.trim() !== '') {
      try {
        action = { action: a.SqlExpression, compiledAction: compileSqlAction(a.SqlExpression), ...parametersOf(a, 'actionParameters') };
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
      return { name: n, kind: 'sql', sql: expr, compiled: compileSqlFilter(expr), ...parametersOf(f, 'filterParameters'), ...action };
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
    const n = entityName(qo.Name, `Queues[${i}]`);
    unique(n, `Queues[${i}]`);
    return { name: n, settings: settings(qo.Properties, `Queues[${i}] (${n})`) };
  });
  const topics = arr(ns.Topics, 'Topics').map((t, i) => {
    const to = obj(t, `Topics[${i}]`);
    const tn = entityName(to.Name, `Topics[${i}]`);
    unique(tn, `Topics[${i}]`);
    const subNames = new Set<string>();
    const subscriptions = arr(to.Subscriptions, `Topics[${i}].Subscriptions`).map((s, j) => {
      const what = `Topics[${i}] (${tn}).Subscriptions[${j}]`;
      const so = obj(s, what);
      const sn = entityName(so.Name, what);
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
