import { CorrelationFilterSpec, EntitySettings, NamespaceDef, RuleDef, SubscriptionDef, parseConfig } from './config';
import { namespaceToConfig } from './namespace-record';
import { Deadlines } from './deadlines';
import { EntityClock } from './entity-clock';
import { MessageEntity, Persistence } from './entity';
import { BrokerError } from './errors';
import { Journal, JournalRecord } from './journal';
import { BrokerMessage, annotationValue, copyMessage, filterView, fromStored, toStored } from './message';
import { restoreRule, storedRule } from './rules';
import { withParameters } from './rule-parameters';
import { ParsedTransfer, readBare, withApplicationProperties, withSystemProperties } from './sections';

/** A topic: its settings, subscriptions (with compiled rules) and the sequence numbers it hands out. */
export interface Topic {
  name: string;
  settings: EntitySettings;
  subscriptions: { name: string; entity: MessageEntity; rules: RuleDef[] }[];
}

/** What a sender link resolves to. */
export type SendTarget =
  | { kind: 'queue'; key: string; entity: MessageEntity; settings: EntitySettings }
  | { kind: 'topic'; key: string; topic: Topic; settings: EntitySettings };

const DLQ = '/$deadletterqueue';

/** The service forwards a message through at most four hops. */
const MAX_FORWARD_HOPS = 4;

export function matchesCorrelation(c: CorrelationFilterSpec, m: BrokerMessage): boolean {
  const f = m.fields;
  const pairs: [string | undefined, string | undefined][] = [
    [c.ContentType, f.contentType],
    [c.CorrelationId, f.correlationId],
    [c.Label, f.subject],
    [c.MessageId, f.messageId],
    [c.ReplyTo, f.replyTo],
    [c.ReplyToSessionId, f.replyToSessionId],
    [c.SessionId, f.sessionId],
    [c.To, f.to],
  ];
  for (const [want, have] of pairs) if (want !== undefined && want !== null && want !== '' && want !== have) return false;
  const comparable = (v: unknown): unknown => (v instanceof Date ? v.getTime() : v);
  for (const [k, v] of Object.entries(c.Properties ?? {})) {
    if (comparable(f.applicationProperties[k]) !== comparable(v)) return false;
  }
  return true;
}

function ruleMatches(rule: RuleDef, m: BrokerMessage): boolean {
  switch (rule.kind) {
    case 'true':
      return true;
    case 'false':
      return false;
    case 'correlation':
      return matchesCorrelation(rule.correlation ?? {}, m);
    case 'sql':
      try {
        return rule.compiled!(withParameters(filterView(m), rule.filterParameters));
      } catch {
        return false;
      }
  }
}

/** The matched rules' actions, in order, on the subscription's copy (user properties set or removed, system properties set). */
function applyActions(m: BrokerMessage, matched: RuleDef[]): BrokerMessage {
  for (const r of matched) {
    if (!r.compiledAction) continue;
    const { set, remove, system } = r.compiledAction(withParameters(filterView(m), r.actionParameters));
    m.bare = withApplicationProperties(m.bare, set, remove);
    if (Object.keys(system).length) m.bare = withSystemProperties(m.bare, system);
    m.fields = readBare(m.bare);
  }
  return m;
}

/**
 * The namespace: queues, topics and subscriptions (with their dead-letter queues), sequence numbers,
 * duplicate detection, scheduled messages, TTL, and the journal when there is one.
 */
export class Broker {
  readonly entities = new Map<string, MessageEntity>();
  readonly topics = new Map<string, Topic>();
  readonly deadlines: Deadlines;
  /** creation, change and use times; auto-delete on idle */
  readonly clock: EntityClock;
  /** sequence counters per send target (queue or topic), lower-cased name */
  private readonly seqs = new Map<string, number>();
  /** duplicate detection: target → message id → time first seen */
  private readonly dedup = new Map<string, Map<string, number>>();
  /** scheduled messages live at their send target until due */
  readonly scheduled = new Map<string, Map<number, BrokerMessage>>();
  private journal: Journal | undefined;
  readonly persistence: Persistence;

  /** subscriptions (entity key) whose rules changed at runtime: their rules are journaled and snapshotted */
  private readonly rulesChanged = new Set<string>();

  /** Told of each message duplicate detection dropped (the admin counter `duplicatesDropped`). */
  onDuplicateDropped: (() => void) | undefined;

  constructor(
    readonly namespace: NamespaceDef,
    readonly now: () => number = Date.now,
  ) {
    this.deadlines = new Deadlines(now);
    this.clock = new EntityClock(this.deadlines, now, {
      idleMs: (key) => this.settingsOf(key)?.autoDeleteOnIdleMs,
      busy: (key) => this.isBusy(key),
      remove: (key) => void this.deleteEntity(key).catch(() => undefined),
    });
    const j = (): Journal | undefined => this.journal;
    this.persistence = {
      put: (e, m) => j()?.append({ o: 'put', e: e.path.toLowerCase(), m: toStored(m) }),
      del: (e, s) => j()?.note({ o: 'del', e: e.path.toLowerCase(), s }),
      upd: (e, m) => j()?.note({ o: 'upd', e: e.path.toLowerCase(), s: m.seq, dc: m.deliveryCount, st: m.state }),
      ses: (e, id, v) => j()?.note({ o: 'ses', e: e.path.toLowerCase(), id, v: v ? v.toString('base64') : null }),
    };
    this.build(namespace);
  }

  /** Creates the namespace's entities (at start, and from the journal's namespace record). */
  private build(namespace: NamespaceDef): void {
    this.entities.clear();
    this.topics.clear();
    this.clock.clear();
    for (const q of namespace.queues) this.createQueue(q.name, q.settings);
    for (const t of namespace.topics) {
      const topic = this.createTopic(t.name, t.settings);
      for (const s of t.subscriptions) this.createSubscription(topic, s);
    }
  }

  /** A receiver holding locks or a session keeps its entity in use (auto-delete on idle waits). */
  private isBusy(key: string): boolean {
    const e = this.entities.get(key);
    return e !== undefined && (e.locks.size > 0 || [...e.sessions.values()].some((s) => s.owner !== undefined));
  }

  private settingsOf(key: string): EntitySettings | undefined {
    return this.topics.get(key)?.settings ?? this.entities.get(key)?.settings;
  }

  createQueue(name: string, settings: EntitySettings): MessageEntity {
    const e = this.addEntity(name, 'queue', settings);
    this.clock.born(name.toLowerCase(), settings.autoDeleteOnIdleMs);
    return e;
  }

  createTopic(name: string, settings: EntitySettings): Topic {
    const topic: Topic = { name, settings, subscriptions: [] };
    this.topics.set(name.toLowerCase(), topic);
    this.clock.born(name.toLowerCase(), settings.autoDeleteOnIdleMs);
    return topic;
  }

  createSubscription(topic: Topic, s: SubscriptionDef): Topic['subscriptions'][number] {
    const path = `${topic.name}/Subscriptions/${s.name}`;
    const entity = this.addEntity(path, 'subscription', s.settings);
    const sub = { name: s.name, entity, rules: s.rules };
    topic.subscriptions.push(sub);
    this.clock.born(path.toLowerCase(), s.settings.autoDeleteOnIdleMs);
    return sub;
  }

  /** New settings for an entity (the administration API's update): messages and locks stay. */
  updateSettings(key: string, settings: EntitySettings): void {
    const current = this.settingsOf(key);
    if (!current) throw notFound(key);
    Object.assign(current, settings);
    this.clock.touch(key, true);
    this.clock.watch(key, current.autoDeleteOnIdleMs);
  }

  /** Deletes a queue, a topic (with its subscriptions) or a subscription, with every message it holds. */
  async deleteEntity(key: string): Promise<void> {
    const topic = this.topics.get(key);
    if (topic) {
      for (const s of [...topic.subscriptions]) this.dropMessages(s.entity.path.toLowerCase());
      this.topics.delete(key);
    } else {
      const e = this.entities.get(key);
      if (!e || e.kind === 'deadletter') throw notFound(key);
      const sub = this.subscriptionOf(e);
      if (sub) for (const t of this.topics.values()) t.subscriptions = t.subscriptions.filter((x) => x !== sub);
      this.dropMessages(key);
    }
    this.clock.forget(key);
    this.scheduled.delete(key);
    this.seqs.delete(key);
    this.dedup.delete(key);
    await this.persistNamespace();
  }

  private dropMessages(key: string): void {
    for (const k of [key, `${key}${DLQ}`]) {
      const e = this.entities.get(k);
      if (!e) continue;
      for (const m of [...e.messages.values()]) e.remove(m);
      this.entities.delete(k);
    }
    this.rulesChanged.delete(key);
    this.clock.forget(key);
  }

  /** The namespace as it is now (entities made or changed at run time included). */
  describe(): NamespaceDef {
    const queues = [...this.entities.values()].filter((e) => e.kind === 'queue').map((e) => ({ name: e.path, settings: e.settings }));
    const topics = [...this.topics.values()].map((t) => ({
      name: t.name,
      settings: t.settings,
      subscriptions: t.subscriptions.map((s) => ({ name: s.name, settings: s.entity.settings, rules: s.rules })),
    }));
    return { name: this.namespace.name, queues, topics };
  }

  /** Journals the namespace's entities (once one was created, changed or deleted at run time); resolves once durable. */
  async persistNamespace(): Promise<void> {
    this.entitiesChanged = true;
    await this.journal?.append({ o: 'ns', e: '', n: namespaceToConfig(this.describe()) });
  }

  private entitiesChanged = false;

  private addEntity(path: string, kind: 'queue' | 'subscription', settings: EntitySettings): MessageEntity {
    const e = new MessageEntity(path, kind, settings, this.deadlines, this.persistence, this.now);
    const dlq = new MessageEntity(`${path}/$DeadLetterQueue`, 'deadletter', settings, this.deadlines, this.persistence, this.now);
    e.deadLetter = dlq;
    e.forwardDeadLetter = (m) => this.forwardDeadLettered(e, m);
    e.onUse = () => this.clock.touch(path.toLowerCase());
    this.entities.set(path.toLowerCase(), e);
    this.entities.set(dlq.path.toLowerCase(), dlq);
    return e;
  }

  /** With ForwardDeadLetteredMessagesTo: a dead-lettered message goes to that queue or topic instead (true when it went). */
  private forwardDeadLettered(from: MessageEntity, m: BrokerMessage): boolean {
    const to = from.settings.forwardDeadLetteredMessagesTo;
    if (!to) return false;
    const target = this.forwardTarget(to);
    if (!target) return false;
    void Promise.all(this.deliver(target, { ...copyMessage(m), seq: this.nextSeq(target.key), state: 'active' }, 1)).catch(() => undefined);
    return true;
  }

  /** The queue or topic a ForwardTo names (an entity path or `sb://host/path`); undefined when it does not exist. */
  private forwardTarget(address: string): SendTarget | undefined {
    try {
      return this.sendTarget(address);
    } catch {
      return undefined;
    }
  }

  /** A receive source: queue, subscription, or a dead-letter queue of one. */
  receiveEntity(address: string): MessageEntity {
    const key = normalize(address);
    const e = this.entities.get(key);
    if (!e) throw notFound(address);
    return e;
  }

  sendTarget(address: string): SendTarget {
    const key = normalize(address);
    if (key.endsWith(DLQ) || key.includes('/subscriptions/')) {
      if (this.entities.has(key))
        throw new BrokerError(
          'notAllowed',
          `Cannot send to '${address}': sending to a subscription or a dead-letter queue is not allowed.`,
        );
      throw notFound(address);
    }
    const topic = this.topics.get(key);
    if (topic) return { kind: 'topic', key, topic, settings: topic.settings };
    const e = this.entities.get(key);
    if (e && e.kind === 'queue') return { kind: 'queue', key, entity: e, settings: e.settings };
    throw notFound(address);
  }

  /** The entity a `$management` address acts on (queue, subscription, topic for scheduling). */
  managementTarget(address: string): { entity?: MessageEntity; target?: SendTarget } {
    const key = normalize(address);
    const entity = this.entities.get(key);
    const topic = this.topics.get(key);
    if (!entity && !topic) throw notFound(address);
    return {
      entity,
      target: topic
        ? { kind: 'topic', key, topic, settings: topic.settings }
        : entity && entity.kind === 'queue'
          ? { kind: 'queue', key, entity, settings: entity.settings }
          : undefined,
    };
  }

  private nextSeq(key: string): number {
    const n = (this.seqs.get(key) ?? 0) + 1;
    this.seqs.set(key, n);
    return n;
  }

  /** Builds a broker message from a parsed transfer (sequence number, enqueued time, TTL, schedule). */
  private admit(target: SendTarget, t: ParsedTransfer, forceScheduleAt?: number): BrokerMessage {
    const now = this.now();
    const ttl = Math.min(t.header.ttl ?? Infinity, target.settings.defaultTtlMs);
    const schedAnn = annotationValue({ annotations: t.annotations } as BrokerMessage, 'x-opt-scheduled-enqueue-time');
    const schedAt =
      forceScheduleAt ?? (schedAnn instanceof Date ? schedAnn.getTime() : typeof schedAnn === 'number' ? schedAnn : undefined);
    const scheduled = schedAt !== undefined && schedAt > now;
    const enqueuedAt = scheduled ? schedAt : now;
    return {
      seq: this.nextSeq(target.key),
      enqueuedAt,
      header: t.header,
      annotations: t.annotations,
      bare: t.bare,
      fields: t.fields,
      ttlMs: ttl,
      expiresAt: enqueuedAt + ttl,
      deliveryCount: 0,
      state: scheduled ? 'scheduled' : 'active',
      scheduledAt: schedAt,
    };
  }

  /** True when duplicate detection drops this message id (and records it otherwise). */
  private isDuplicate(target: SendTarget, m: BrokerMessage): boolean {
    if (!target.settings.requiresDuplicateDetection || m.fields.messageId === undefined) return false;
    const now = this.now();
    let seen = this.dedup.get(target.key);
    if (!seen) this.dedup.set(target.key, (seen = new Map()));
    const at = seen.get(m.fields.messageId);
    if (at !== undefined && now - at < target.settings.duplicateWindowMs) return true;
    seen.set(m.fields.messageId, now);
    if (seen.size > 10_000) for (const [id, t] of seen) if (now - t >= target.settings.duplicateWindowMs) seen.delete(id);
    this.journal?.note({ o: 'dup', e: target.key, id: m.fields.messageId, at: now });
    return false;
  }

  /**
   * Accepts messages sent to a queue or topic. Resolves once they are stored (durable with a journal).
   * Returns the sequence numbers (duplicates dropped silently, as the service does).
   */
  async send(target: SendTarget, transfers: ParsedTransfer[], scheduleAt?: number): Promise<number[]> {
    const seqs: number[] = [];
    const durable: Promise<void>[] = [];
    for (const t of transfers) {
      const m = this.admit(target, t, scheduleAt);
      if (this.isDuplicate(target, m)) {
        this.onDuplicateDropped?.();
        seqs.push(m.seq);
        continue;
      }
      seqs.push(m.seq);
      if (m.state === 'scheduled') {
        this.schedule(target, m);
        const p = this.journal?.append({ o: 'put', e: `${target.key}/$scheduled`, m: toStored(m) });
        if (p) durable.push(p);
      } else {
        durable.push(...this.deliver(target, m));
      }
    }
    await Promise.all(durable);
    return seqs;
  }

  private schedule(target: SendTarget, m: BrokerMessage): void {
    let s = this.scheduled.get(target.key);
    if (!s) this.scheduled.set(target.key, (s = new Map()));
    s.set(m.seq, m);
    this.deadlines.add(m.scheduledAt ?? 0, () => this.activate(target, m));
  }

  private activate(target: SendTarget, m: BrokerMessage): void {
    const s = this.scheduled.get(target.key);
    if (!s || s.get(m.seq) !== m) return;
    s.delete(m.seq);
    this.journal?.note({ o: 'del', e: `${target.key}/$scheduled`, s: m.seq });
    m.state = 'active';
    m.enqueuedAt = this.now();
    m.expiresAt = m.enqueuedAt + m.ttlMs;
    void Promise.all(this.deliver(target, m)).catch(() => undefined);
  }

  cancelScheduled(target: SendTarget, seqs: number[]): void {
    const s = this.scheduled.get(target.key);
    for (const seq of seqs) {
      if (!s || !s.has(seq)) throw new BrokerError('messageNotFound', `The scheduled message with sequence number ${seq} was not found.`);
    }
    for (const seq of seqs) {
      s!.delete(seq);
      this.journal?.note({ o: 'del', e: `${target.key}/$scheduled`, s: seq });
    }
  }

  /**
   * Puts a message into its queue, or a copy into each subscription whose rules match; an entity with
   * ForwardTo passes it on to that queue or topic (at most four hops, as the service).
   */
  private deliver(target: SendTarget, m: BrokerMessage, hops = 0): Promise<void>[] {
    const out: Promise<void>[] = [];
    this.clock.touch(target.key);
    const into = (e: MessageEntity, msg: BrokerMessage): void => {
      const next = e.settings.forwardTo && hops < MAX_FORWARD_HOPS ? this.forwardTarget(e.settings.forwardTo) : undefined;
      if (next) {
        out.push(...this.deliver(next, { ...msg, seq: this.nextSeq(next.key) }, hops + 1));
        return;
      }
      const p = this.persistence.put(e, msg);
      if (p) out.push(p);
      e.insert(msg);
    };
    if (target.kind === 'queue') into(target.entity, m);
    else
      for (const sub of target.topic.subscriptions) {
        const matched = sub.rules.filter((r) => ruleMatches(r, m));
        if (matched.length) into(sub.entity, applyActions(copyMessage(m), matched));
      }
    return out;
  }

  private subscriptionByKey(key: string): Topic['subscriptions'][number] | undefined {
    const e = this.entities.get(key);
    return e && this.subscriptionOf(e);
  }

  /** The topic subscription an entity is, for rule management. */
  subscriptionOf(entity: MessageEntity): Topic['subscriptions'][number] | undefined {
    for (const t of this.topics.values()) for (const s of t.subscriptions) if (s.entity === entity) return s;
    return undefined;
  }

  /**
   * Replaces a subscription's rules (`add-rule`, `remove-rule`). Rules are the entity's state as on the
   * service: with a journal they survive a restart (and then take the place of the Config.json's rules).
   * Resolves once the change is durable (the reply waits for it, as a send's acknowledgement does).
   */
  async setRules(sub: Topic['subscriptions'][number], rules: RuleDef[]): Promise<void> {
    sub.rules = rules;
    const key = sub.entity.path.toLowerCase();
    this.rulesChanged.add(key);
    await this.journal?.append({ o: 'rules', e: key, r: rules.map(storedRule) });
  }

  scheduledPeek(target: SendTarget): BrokerMessage[] {
    return [...(this.scheduled.get(target.key)?.values() ?? [])];
  }

  // --- journal ---

  attachJournal(dir: string): void {
    const pending = new Map<string, Map<number, BrokerMessage>>();
    const sessions: { e: string; id: string; v: string | null }[] = [];
    const dups: { e: string; id: string; at: number }[] = [];
    const rules = new Map<string, unknown[]>();
    let namespace: NamespaceDef | undefined;
    const journal = Journal.open(dir, (r) => {
      switch (r.o) {
        case 'put': {
          let m = pending.get(r.e);
          if (!m) pending.set(r.e, (m = new Map()));
          m.set(r.m.seq, fromStored(r.m));
          const base = r.e.endsWith('/$scheduled') ? r.e.slice(0, -'/$scheduled'.length) : r.e.replace(/\/subscriptions\/[^/]+$/, '');
          if (!r.e.endsWith(DLQ)) this.seqs.set(base, Math.max(this.seqs.get(base) ?? 0, r.m.seq));
          break;
        }
        case 'del':
          pending.get(r.e)?.delete(r.s);
          break;
        case 'upd': {
          const m = pending.get(r.e)?.get(r.s);
          if (m) {
            m.deliveryCount = r.dc;
            m.state = r.st;
          }
          break;
        }
        case 'ses':
          sessions.push(r);
          break;
        case 'seq':
          this.seqs.set(r.e, Math.max(this.seqs.get(r.e) ?? 0, r.n));
          break;
        case 'dup':
          dups.push(r);
          break;
        case 'rules':
          rules.set(r.e, r.r);
          break;
        case 'ns': {
          // the namespace as the administration API left it: its rules supersede earlier rule records,
          // and messages of entities it no longer has are gone (a later entity of the same name starts empty)
          namespace = parseConfig({ UserConfig: { Namespaces: [r.n] } });
          rules.clear();
          const keys = entityKeys(namespace);
          for (const key of [...pending.keys()]) if (!keys.has(key.replace(/\/\$(deadletterqueue|scheduled)$/, ''))) pending.delete(key);
          break;
        }
      }
    });
    if (namespace) {
      this.build(namespace);
      this.entitiesChanged = true;
    }
    for (const [key, msgs] of pending) {
      if (key.endsWith('/$scheduled')) {
        const base = key.slice(0, -'/$scheduled'.length);
        let target: SendTarget;
        try {
          target = this.sendTarget(base);
        } catch {
          continue; // the entity is no longer configured
        }
        for (const m of msgs.values()) this.schedule(target, m);
        continue;
      }
      const e = this.entities.get(key);
      if (!e) continue;
      for (const m of [...msgs.values()].sort((a, b) => a.seq - b.seq)) e.insert(m, true);
    }
    for (const s of sessions) this.entities.get(s.e)?.restoreSessionState(s.id, s.v === null ? undefined : Buffer.from(s.v, 'base64'));
    for (const d of dups) {
      let seen = this.dedup.get(d.e);
      if (!seen) this.dedup.set(d.e, (seen = new Map()));
      seen.set(d.id, d.at);
    }
    for (const [key, list] of rules) {
      const sub = this.subscriptionByKey(key);
      if (!sub) continue; // the subscription is no longer configured
      sub.rules = list.map((raw, i) => restoreRule(raw, `journal: rules of ${key}[${i}]`));
      this.rulesChanged.add(key);
    }
    journal.compact(this.snapshot());
    this.journal = journal;
  }

  private *snapshot(): Generator<JournalRecord> {
    if (this.entitiesChanged) yield { o: 'ns', e: '', n: namespaceToConfig(this.describe()) };
    for (const [e, n] of this.seqs) yield { o: 'seq', e, n };
    for (const [key, e] of this.entities) {
      for (const m of e.messages.values()) yield { o: 'put', e: key, m: toStored(m) };
      for (const s of e.sessions.values()) if (s.state) yield { o: 'ses', e: key, id: s.id, v: s.state.toString('base64') };
    }
    for (const key of this.rulesChanged) {
      const sub = this.subscriptionByKey(key);
      if (sub) yield { o: 'rules', e: key, r: sub.rules.map(storedRule) };
    }
    for (const [key, s] of this.scheduled) for (const m of s.values()) yield { o: 'put', e: `${key}/$scheduled`, m: toStored(m) };
    const now = this.now();
    for (const [key, seen] of this.dedup) for (const [id, at] of seen) if (now - at < 24 * 3600_000) yield { o: 'dup', e: key, id, at };
  }

  async close(): Promise<void> {
    this.deadlines.stop();
    await this.journal?.close();
  }
}

/** Every queue, topic and subscription path of a namespace, lower-cased. */
function entityKeys(ns: NamespaceDef): Set<string> {
  const keys = new Set<string>();
  for (const q of ns.queues) keys.add(q.name.toLowerCase());
  for (const t of ns.topics) {
    keys.add(t.name.toLowerCase());
    for (const s of t.subscriptions) keys.add(`${t.name}/subscriptions/${s.name}`.toLowerCase());
  }
  return keys;
}

export function normalize(address: string): string {
  let a = address;
  const m = /^(?:amqps?|sb):\/\/[^/]+\/(.*)$/i.exec(a);
  if (m) a = m[1];
  return a.replace(/^\/+|\/+$/g, '').toLowerCase();
}

function notFound(address: string): BrokerError {
  return new BrokerError(
    'notFound',
    `The messaging entity 'sb://opstream-emulator/${normalize(address)}' could not be found. To know more visit https://aka.ms/sbResourceMgrExceptions.`,
  );
}
