import { ConfigError, EntitySettings, settings } from '../config';
import { formatDuration } from '../duration';
import { EntityTimes } from '../entity-clock';
import { authorizationRulesFromXml, authorizationRulesXml } from './authorization-rules';
import { NS, XmlNode, XmlValue, isNode, text } from './xml';

/**
 * Queue, topic and subscription descriptions of the administration API ↔ the stand-in's entity settings.
 * A description's element names are Config.json's property names, so a request is read with the same
 * parser as the file (after typing its text), with the service's ranges applied.
 */
export type EntityKind = 'queue' | 'topic' | 'subscription';

export const DESCRIPTION: Record<EntityKind, string> = {
  queue: 'QueueDescription',
  topic: 'TopicDescription',
  subscription: 'SubscriptionDescription',
};

const BOOLEANS = new Set([
  'RequiresDuplicateDetection',
  'RequiresSession',
  'DeadLetteringOnMessageExpiration',
  'DeadLetteringOnFilterEvaluationExceptions',
  'EnableBatchedOperations',
  'EnablePartitioning',
  'SupportOrdering',
  'EnableExpress',
]);
const INTEGERS = new Set(['MaxSizeInMegabytes', 'MaxDeliveryCount', 'MaxMessageSizeInKilobytes']);
const STRINGS = new Set([
  'LockDuration',
  'DefaultMessageTimeToLive',
  'DuplicateDetectionHistoryTimeWindow',
  'AutoDeleteOnIdle',
  'ForwardTo',
  'ForwardDeadLetteredMessagesTo',
  'UserMetadata',
  'Status',
]);
/** Sent by the SDK, answered by the service, not settable: read and left alone. */
const IGNORED = new Set(['EntityAvailabilityStatus', 'DefaultRuleDescription']);

/** A description's fields as Config.json Properties, typed; unknown or mistyped fields are a ConfigError. */
function properties(kind: EntityKind, fields: XmlNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name.startsWith('@_') || IGNORED.has(name)) continue;
    if (name === 'AuthorizationRules') {
      out[name] = authorizationRulesFromXml(value) ?? [];
      continue;
    }
    const t = text(value);
    if (t === undefined) throw new ConfigError(`${DESCRIPTION[kind]}.${name} must be a simple value.`);
    if (BOOLEANS.has(name)) {
      if (t !== 'true' && t !== 'false') throw new ConfigError(`${DESCRIPTION[kind]}.${name} must be true or false, not '${t}'.`);
      out[name] = t === 'true';
    } else if (INTEGERS.has(name)) {
      if (!/^-?\d+$/.test(t)) throw new ConfigError(`${DESCRIPTION[kind]}.${name} must be an integer, not '${t}'.`);
      out[name] = Number(t);
    } else if (STRINGS.has(name)) out[name] = t;
    else throw new ConfigError(`${DESCRIPTION[kind]}.${name} is not a property of a ${kind}.`);
  }
  return out;
}

/** Settings from a create (`base` = defaults) or an update (`base` = the entity's, as the service keeps what is not sent). */
export function settingsFromDescription(kind: EntityKind, fields: XmlNode, base: EntitySettings): EntitySettings {
  return settings(properties(kind, fields), DESCRIPTION[kind], base, true);
}

/** The forwarding target as the service reports it: an absolute `sb://` address, scheme and host lower-cased as URIs are. */
function forwardAddress(to: string | undefined, host: string): string | undefined {
  if (!to) return undefined;
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(to);
  return m ? `${m[1].toLowerCase()}://${m[2].toLowerCase()}${m[3]}` : `sb://${host}/${to}`;
}

/** The standard tier's sizes; a partitioned entity spreads over 16 partitions and reports 16 times its size. */
const STANDARD_SIZES_MB = new Set([1024, 2048, 3072, 4096, 5120]);
function reportedMaxSize(s: EntitySettings): number {
  return s.enablePartitioning && STANDARD_SIZES_MB.has(s.maxSizeInMegabytes) ? s.maxSizeInMegabytes * 16 : s.maxSizeInMegabytes;
}

export interface Counts {
  active: number;
  deadLettered: number;
  scheduled: number;
  total: number;
  sizeInBytes: number;
}

function countDetails(c: Counts): XmlNode {
  return {
    '@_xmlns:d2p1': NS.counts,
    'd2p1:ActiveMessageCount': c.active,
    'd2p1:DeadLetterMessageCount': c.deadLettered,
    'd2p1:ScheduledMessageCount': c.scheduled,
    'd2p1:TransferMessageCount': 0,
    'd2p1:TransferDeadLetterMessageCount': 0,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The description the service answers, in its element order. */
export function describeEntity(
  kind: EntityKind,
  s: EntitySettings,
  times: EntityTimes,
  counts: Counts,
  host: string,
  subscriptionCount = 0,
): XmlNode {
  const common: Record<string, XmlValue> = {
    '@_xmlns': NS.connect,
    '@_xmlns:i': NS.instance,
  };
  const stamps = { CreatedAt: iso(times.createdAt), UpdatedAt: iso(times.updatedAt), AccessedAt: iso(times.accessedAt) };
  const forwardTo = forwardAddress(s.forwardTo, host);
  const forwardDlq = forwardAddress(s.forwardDeadLetteredMessagesTo, host);
  if (kind === 'queue')
    return {
      ...common,
      LockDuration: formatDuration(s.lockDurationMs),
      MaxSizeInMegabytes: reportedMaxSize(s),
      RequiresDuplicateDetection: s.requiresDuplicateDetection,
      RequiresSession: s.requiresSession,
      DefaultMessageTimeToLive: formatDuration(s.defaultTtlMs),
      DeadLetteringOnMessageExpiration: s.deadLetterOnExpiration,
      DuplicateDetectionHistoryTimeWindow: formatDuration(s.duplicateWindowMs),
      MaxDeliveryCount: s.maxDeliveryCount,
      EnableBatchedOperations: s.enableBatchedOperations,
      SizeInBytes: counts.sizeInBytes,
      MessageCount: counts.total,
      IsAnonymousAccessible: false,
      AuthorizationRules: authorizationRulesXml(s.authorizationRules),
      Status: s.status,
      ForwardTo: forwardTo,
      UserMetadata: s.userMetadata,
      ...stamps,
      SupportOrdering: s.supportOrdering,
      CountDetails: countDetails(counts),
      AutoDeleteOnIdle: formatDuration(s.autoDeleteOnIdleMs),
      EnablePartitioning: s.enablePartitioning,
      EntityAvailabilityStatus: 'Available',
      EnableExpress: s.enableExpress,
      ForwardDeadLetteredMessagesTo: forwardDlq,
      MaxMessageSizeInKilobytes: s.maxMessageSizeBytes / 1024,
    };
  if (kind === 'topic')
    return {
      ...common,
      DefaultMessageTimeToLive: formatDuration(s.defaultTtlMs),
      MaxSizeInMegabytes: reportedMaxSize(s),
      RequiresDuplicateDetection: s.requiresDuplicateDetection,
      DuplicateDetectionHistoryTimeWindow: formatDuration(s.duplicateWindowMs),
      EnableBatchedOperations: s.enableBatchedOperations,
      SizeInBytes: counts.sizeInBytes,
      FilteringMessagesBeforePublishing: false,
      IsAnonymousAccessible: false,
      AuthorizationRules: authorizationRulesXml(s.authorizationRules),
      Status: s.status,
      UserMetadata: s.userMetadata,
      ...stamps,
      SupportOrdering: s.supportOrdering,
      CountDetails: countDetails(counts),
      SubscriptionCount: subscriptionCount,
      AutoDeleteOnIdle: formatDuration(s.autoDeleteOnIdleMs),
      EnablePartitioning: s.enablePartitioning,
      IsExpress: s.enableExpress,
      EntityAvailabilityStatus: 'Available',
      EnableExpress: s.enableExpress,
      MaxMessageSizeInKilobytes: s.maxMessageSizeBytes / 1024,
    };
  return {
    ...common,
    LockDuration: formatDuration(s.lockDurationMs),
    RequiresSession: s.requiresSession,
    DefaultMessageTimeToLive: formatDuration(s.defaultTtlMs),
    DeadLetteringOnMessageExpiration: s.deadLetterOnExpiration,
    DeadLetteringOnFilterEvaluationExceptions: s.deadLetteringOnFilterEvaluationExceptions,
    MessageCount: counts.total,
    MaxDeliveryCount: s.maxDeliveryCount,
    EnableBatchedOperations: s.enableBatchedOperations,
    Status: s.status,
    ForwardTo: forwardTo,
    UserMetadata: s.userMetadata,
    ...stamps,
    CountDetails: countDetails(counts),
    ForwardDeadLetteredMessagesTo: forwardDlq,
    AutoDeleteOnIdle: formatDuration(s.autoDeleteOnIdleMs),
    EntityAvailabilityStatus: 'Available',
  };
}

/** The DefaultRuleDescription a subscription create may carry. */
export function defaultRuleOf(fields: XmlNode): XmlNode | undefined {
  const d = fields.DefaultRuleDescription;
  return isNode(d) ? d : undefined;
}
