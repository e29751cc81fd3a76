import { randomUUID } from 'node:crypto';
import { Broker, Topic } from '../broker';
import { EntityTimes } from '../entity-clock';
import { ConfigError, DEFAULTS, RuleDef, entityName } from '../config';
import { BrokerError, describe as withTracking } from '../errors';
import { MessageEntity } from '../entity';
import { Counts, DESCRIPTION, EntityKind, defaultRuleOf, describeEntity, settingsFromDescription } from './descriptions';
import { describeRule, ruleFromDescription } from './rule-description';
import { NS, XmlError, XmlNode, build, parseEntry } from './xml';

/**
 * The administration API as `ServiceBusAdministrationClient` speaks it (ATOM over HTTPS, api-version
 * 2021-05): queues, topics, subscriptions and rules created, read, updated (`If-Match: *`), deleted and
 * listed (`$skip`/`$top`), runtime counts, `$namespaceinfo`. Errors are `<Error><Code/><Detail/></Error>`.
 */
export interface AtomRequest {
  method: string;
  /** path and query as received */
  url: string;
  host: string;
  ifMatch: boolean;
  body: string;
}

export interface AtomResponse {
  status: number;
  body: string;
}

const API_VERSION = '2021-05';
const DEFAULT_RULE = '$Default';

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function errorResponse(status: number, message: string): AtomResponse {
  return { status, body: build({ Error: { Code: status, Detail: withTracking(message) } }) };
}

export class AtomApi {
  constructor(private readonly broker: Broker) {}

  async handle(req: AtomRequest): Promise<AtomResponse> {
    try {
      return await this.route(req);
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err.status, err.message);
      if (err instanceof BrokerError) return errorResponse(err.kind === 'notFound' ? 404 : err.status, err.message);
      if (err instanceof ConfigError || err instanceof XmlError) return errorResponse(400, err.message);
      throw err;
    }
  }

  private async route(req: AtomRequest): Promise<AtomResponse> {
    const url = new URL(req.url, `https://${req.host}`);
    const parts = url.pathname
      .split('/')
      .filter((p) => p !== '')
      .map((p) => decodeURIComponent(p));
    const lower = parts.map((p) => p.toLowerCase());
    const page = { skip: intParam(url, '$skip', 0), top: intParam(url, '$top', 100) };
    const get = req.method === 'GET';
    if (lower.length === 1 && lower[0] === '$namespaceinfo' && get) return this.namespaceInfo(req.host);
    if (lower.length === 2 && lower[0] === '$resources' && get) {
      if (lower[1] === 'queues') return this.list(req.host, 'Queues', parts.join('/'), this.queueEntries(req.host), page);
      if (lower[1] === 'topics') return this.list(req.host, 'Topics', parts.join('/'), this.topicEntries(req.host), page);
    }
    if (lower.length === 2 && lower[1] === 'subscriptions' && get) {
      const topic = this.topic(parts[0]);
      const entries = topic ? topic.subscriptions.map((s) => this.subscriptionEntry(req.host, topic, s)) : [];
      return this.list(req.host, 'Subscriptions', parts.join('/'), entries, page);
    }
    if (lower.length === 4 && lower[1] === 'subscriptions' && lower[3] === 'rules' && get) {
      const sub = this.subscription(parts[0], parts[2]);
      const entries = sub ? sub.sub.rules.map((r) => this.ruleEntry(req.host, sub.topic, sub.sub, r)) : [];
      return this.list(req.host, 'Rules', parts.join('/'), entries, page);
    }
    if (lower.length === 5 && lower[1] === 'subscriptions' && lower[3] === 'rules') return this.rule(req, parts);
    if (lower.length === 3 && lower[1] === 'subscriptions') return this.subscriptionCall(req, parts[0], parts[2]);
    if (lower.length === 1 && !lower[0].startsWith('$')) return this.queueOrTopic(req, parts[0]);
    throw new HttpError(400, `The request ${req.method} ${url.pathname} is not part of the administration API this stand-in serves.`);
  }

  // --- queues and topics ---

  private async queueOrTopic(req: AtomRequest, name: string): Promise<AtomResponse> {
    const key = name.toLowerCase();
    const queue = this.queue(name);
    const topic = this.topic(name);
    if (req.method === 'GET') {
      if (queue) return entryResponse(200, this.queueEntry(req.host, queue));
      if (topic) return entryResponse(200, this.topicEntry(req.host, topic));
      return emptyFeed();
    }
    if (req.method === 'DELETE') {
      if (!queue && !topic) throw notFound(name);
      await this.broker.deleteEntity(key);
      return { status: 200, body: '' };
    }
    if (req.method !== 'PUT') throw new HttpError(405, `${req.method} is not allowed on ${name}.`);
    const { kind, fields } = parseEntry(req.body);
    const wanted: EntityKind = kind === DESCRIPTION.topic ? 'topic' : kind === DESCRIPTION.queue ? 'queue' : fail(kind);
    if (req.ifMatch) {
      const existing = wanted === 'queue' ? queue?.settings : topic?.settings;
      if (!existing) throw notFound(name);
      this.broker.updateSettings(key, settingsFromDescription(wanted, fields, { ...existing }));
      await this.broker.persistNamespace();
      return entryResponse(200, wanted === 'queue' ? this.queueEntry(req.host, queue!) : this.topicEntry(req.host, topic!));
    }
    if (queue || topic) throw conflict(name);
    checkName(name);
    const s = settingsFromDescription(wanted, fields, { ...DEFAULTS });
    if (wanted === 'queue') {
      const created = this.broker.createQueue(name, s);
      await this.broker.persistNamespace();
      return entryResponse(201, this.queueEntry(req.host, created));
    }
    const created = this.broker.createTopic(name, s);
    await this.broker.persistNamespace();
    return entryResponse(201, this.topicEntry(req.host, created));
  }

  // --- subscriptions ---

  private async subscriptionCall(req: AtomRequest, topicName: string, name: string): Promise<AtomResponse> {
    const topic = this.topic(topicName);
    const found = this.subscription(topicName, name);
    const path = `${topicName}/Subscriptions/${name}`;
    if (req.method === 'GET') return found ? entryResponse(200, this.subscriptionEntry(req.host, found.topic, found.sub)) : emptyFeed();
    if (req.method === 'DELETE') {
      if (!found) throw notFound(path);
      await this.broker.deleteEntity(found.sub.entity.path.toLowerCase());
      return { status: 200, body: '' };
    }
    if (req.method !== 'PUT') throw new HttpError(405, `${req.method} is not allowed on ${path}.`);
    const { kind, fields } = parseEntry(req.body);
    if (kind !== DESCRIPTION.subscription) fail(kind);
    if (req.ifMatch) {
      if (!found) throw notFound(path);
      const key = found.sub.entity.path.toLowerCase();
      this.broker.updateSettings(key, settingsFromDescription('subscription', fields, { ...found.sub.entity.settings }));
      await this.broker.persistNamespace();
      return entryResponse(200, this.subscriptionEntry(req.host, found.topic, found.sub));
    }
    if (!topic) throw notFound(topicName);
    if (found) throw conflict(path);
    checkName(name);
    const s = settingsFromDescription('subscription', fields, { ...DEFAULTS });
    const defaultRule = defaultRuleOf(fields);
    const rule: RuleDef = defaultRule ? ruleFromDescription(defaultRule, DEFAULT_RULE) : { name: DEFAULT_RULE, kind: 'true' };
    const sub = this.broker.createSubscription(topic, { name, settings: s, rules: [{ ...rule, createdAt: Date.now() }] });
    await this.broker.persistNamespace();
    return entryResponse(201, this.subscriptionEntry(req.host, topic, sub));
  }

  // --- rules ---

  private async rule(req: AtomRequest, parts: string[]): Promise<AtomResponse> {
    const [topicName, , subName, , ruleName] = parts;
    const path = `${topicName}/Subscriptions/${subName}/Rules/${ruleName}`;
    const found = this.subscription(topicName, subName);
    const existing = found?.sub.rules.find((r) => r.name.toLowerCase() === ruleName.toLowerCase());
    if (req.method === 'GET')
      return found && existing ? entryResponse(200, this.ruleEntry(req.host, found.topic, found.sub, existing)) : emptyFeed();
    if (!found) throw notFound(`${topicName}/Subscriptions/${subName}`);
    if (req.method === 'DELETE') {
      if (!existing) throw notFound(path);
      await this.broker.setRules(
        found.sub,
        found.sub.rules.filter((r) => r !== existing),
      );
      return { status: 200, body: '' };
    }
    if (req.method !== 'PUT') throw new HttpError(405, `${req.method} is not allowed on ${path}.`);
    const { kind, fields } = parseEntry(req.body);
    if (kind !== 'RuleDescription') fail(kind);
    if (req.ifMatch && !existing) throw notFound(path);
    if (!req.ifMatch && existing) throw conflict(path);
    const rule = {
      ...ruleFromDescription(fields, ruleName),
      name: existing?.name ?? ruleName,
      createdAt: existing?.createdAt ?? Date.now(),
    };
    const rules = existing ? found.sub.rules.map((r) => (r === existing ? rule : r)) : [...found.sub.rules, rule];
    await this.broker.setRules(found.sub, rules);
    return entryResponse(existing ? 200 : 201, this.ruleEntry(req.host, found.topic, found.sub, rule));
  }

  // --- lookups ---

  private queue(name: string): MessageEntity | undefined {
    const e = this.broker.entities.get(name.toLowerCase());
    return e?.kind === 'queue' ? e : undefined;
  }

  private topic(name: string): Topic | undefined {
    return this.broker.topics.get(name.toLowerCase());
  }

  private subscription(topicName: string, name: string): { topic: Topic; sub: Topic['subscriptions'][number] } | undefined {
    const topic = this.topic(topicName);
    const sub = topic?.subscriptions.find((s) => s.name.toLowerCase() === name.toLowerCase());
    return topic && sub ? { topic, sub } : undefined;
  }

  private times(key: string): EntityTimes {
    return this.broker.clock.get(key) ?? { createdAt: 0, updatedAt: 0, accessedAt: 0 };
  }

  private counts(e: MessageEntity, scheduledKey?: string): Counts {
    const c = e.counts();
    const scheduled = c.scheduled + (scheduledKey ? (this.broker.scheduled.get(scheduledKey)?.size ?? 0) : 0);
    const deadLettered = e.deadLetter?.messages.size ?? 0;
    let sizeInBytes = 0;
    for (const m of e.messages.values()) sizeInBytes += m.bare.length;
    const active = c.active + c.deferred;
    return { active, deadLettered, scheduled, total: active + deadLettered + scheduled, sizeInBytes };
  }

  // --- entries ---

  private queueEntries(host: string): XmlNode[] {
    return [...this.broker.entities.values()].filter((e) => e.kind === 'queue').map((q) => this.queueEntry(host, q));
  }

  private topicEntries(host: string): XmlNode[] {
    return [...this.broker.topics.values()].map((t) => this.topicEntry(host, t));
  }

  private queueEntry(host: string, q: MessageEntity): XmlNode {
    const key = q.path.toLowerCase();
    return entry(host, q.path, q.path, DESCRIPTION.queue, describeEntity('queue', q.settings, this.times(key), this.counts(q, key), host));
  }

  private topicEntry(host: string, t: Topic): XmlNode {
    const key = t.name.toLowerCase();
    const scheduled = this.broker.scheduled.get(key)?.size ?? 0;
    let sizeInBytes = 0;
    for (const s of t.subscriptions) for (const m of s.entity.messages.values()) sizeInBytes += m.bare.length;
    const counts: Counts = { active: 0, deadLettered: 0, scheduled, total: 0, sizeInBytes };
    return entry(
      host,
      t.name,
      t.name,
      DESCRIPTION.topic,
      describeEntity('topic', t.settings, this.times(key), counts, host, t.subscriptions.length),
    );
  }

  private subscriptionEntry(host: string, t: Topic, s: Topic['subscriptions'][number]): XmlNode {
    const key = s.entity.path.toLowerCase();
    const path = `${t.name}/Subscriptions/${s.name}`;
    return entry(
      host,
      path,
      s.name,
      DESCRIPTION.subscription,
      describeEntity('subscription', s.entity.settings, this.times(key), this.counts(s.entity), host),
    );
  }

  private ruleEntry(host: string, t: Topic, s: Topic['subscriptions'][number], r: RuleDef): XmlNode {
    const path = `${t.name}/Subscriptions/${s.name}/Rules/${r.name}`;
    return entry(host, path, r.name, 'RuleDescription', describeRule(r, this.times(s.entity.path.toLowerCase()).createdAt));
  }

  private namespaceInfo(host: string): AtomResponse {
    const t = new Date(this.broker.clock.earliest()).toISOString();
    const info: XmlNode = {
      '@_xmlns': NS.connect,
      '@_xmlns:i': NS.instance,
      Alias: '',
      CreatedTime: t,
      MessagingSKU: 'Standard',
      MessagingUnits: 0,
      ModifiedTime: t,
      Name: this.broker.namespace.name,
      NamespaceType: 'Messaging',
    };
    return entryResponse(200, entry(host, '$namespaceinfo', this.broker.namespace.name, 'NamespaceInfo', info));
  }

  private list(host: string, title: string, path: string, entries: XmlNode[], page: { skip: number; top: number }): AtomResponse {
    const shown = entries.slice(page.skip, page.skip + page.top);
    const self = selfUrl(host, path);
    const links: XmlNode[] = [{ '@_rel': 'self', '@_href': self }];
    if (page.skip + page.top < entries.length)
      links.push({ '@_rel': 'next', '@_href': `${self}&$skip=${page.skip + page.top}&$top=${page.top}` });
    const feed: XmlNode = {
      '@_xmlns': NS.atom,
      title: { '@_type': 'text', '#text': title },
      id: self,
      updated: new Date().toISOString(),
      link: links,
      entry: shown.map((e) => e.entry as XmlNode),
    };
    return { status: 200, body: build({ feed }) };
  }
}

function selfUrl(host: string, path: string): string {
  return `https://${host}/${path
    .split('/')
    .map((p) => encodeURIComponent(p).replace(/%24/g, '$'))
    .join('/')}?api-version=${API_VERSION}`;
}

function entry(host: string, path: string, title: string, kind: string, description: XmlNode): XmlNode {
  const url = selfUrl(host, path);
  const now = new Date().toISOString();
  return {
    entry: {
      '@_xmlns': NS.atom,
      id: url,
      title: { '@_type': 'text', '#text': title },
      published: now,
      updated: now,
      author: { name: host.split(':')[0] },
      link: { '@_rel': 'self', '@_href': url },
      content: { '@_type': 'application/xml', [kind]: description },
    },
  };
}

function entryResponse(status: number, e: XmlNode): AtomResponse {
  return { status, body: build(e) };
}

/** What the service answers a GET of an entity that does not exist: 200 and a feed without entries. */
function emptyFeed(): AtomResponse {
  const feed: XmlNode = {
    '@_xmlns': NS.atom,
    title: { '@_type': 'text', '#text': 'Publicly Listed Services' },
    subtitle: { '@_type': 'text', '#text': 'This is the list of publicly-listed services currently available.' },
    id: `uuid:${randomUUID()};id=1`,
    updated: new Date().toISOString(),
    generator: 'Service Bus 1.1',
  };
  return { status: 200, body: build({ feed }) };
}

function intParam(url: URL, name: string, fallback: number): number {
  const v = url.searchParams.get(name);
  if (v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new HttpError(400, `The query parameter ${name} must be a non-negative integer, not '${v}'.`);
  return n;
}

function checkName(name: string): void {
  try {
    entityName(name, 'The entity');
  } catch (err) {
    if (err instanceof ConfigError) throw new HttpError(400, err.message);
    throw err;
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,259}$/.test(name))
    throw new HttpError(
      400,
      `The entity name '${name}' is not valid: letters, digits, periods, hyphens and underscores, starting with a letter or digit.`,
    );
}

function fail(kind: string): never {
  throw new HttpError(400, `The description '${kind}' does not fit this address.`);
}

function notFound(path: string): HttpError {
  return new HttpError(404, `Entity '${path}' was not found. To know more visit https://aka.ms/sbResourceMgrExceptions.`);
}

function conflict(path: string): HttpError {
  return new HttpError(
    409,
    `SubCode=40900. Conflict. You're requesting an operation that isn't allowed in the resource's current state. To know more visit https://aka.ms/sbResourceMgrExceptions. The messaging entity '${path}' already exists.`,
  );
}
