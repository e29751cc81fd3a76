import { randomBytes } from 'node:crypto';
import {
  AmqpConnection,
  AmqpDelivery,
  AmqpLink,
  AmqpListener,
  AmqpReceiver,
  AmqpSender,
  AmqpServer,
  EventContext,
  deferAttach,
  isDraining,
  isRecord,
  listenAmqp,
  HttpRoute,
  outcome,
  prepareAttach,
  remoteAttach,
  encodeMessage,
  settleOutgoing,
  untransferredFrom,
  transferBytes,
} from './amqp';
import { Authenticator, Claim, Right, TokenError, scopeCovers, scopeOf } from './auth';
import { Broker, SendTarget, normalize } from './broker';
import { Counters } from './counters';
import { MessageEntity } from './entity';
import { assertStatusAllows } from './entity-status';
import { BrokerError, CONDITION, describe, toAmqpError } from './errors';
import { Faults } from './faults';
import { handleManagement, managementReplyMessage } from './management';
import { encodeForDelivery, reorderGuid, ticksTyped } from './message';
import { MalformedMessage, ParsedTransfer, batchParts, parseTransfer } from './sections';

const SESSION_FILTER = 'com.microsoft:session-filter';
const BATCH_FORMAT = 0x80013700;
/** Standard tier's message size limit. */
export const MAX_MESSAGE_SIZE = 256 * 1024;
const SEND_CREDIT = 500;

interface Conn {
  id: string;
  raw: AmqpConnection;
  claims: Claim[];
  /** reply links by link name and by target address */
  replyLinks: Map<string, AmqpSender>;
  consumers: Set<Consumer>;
}

interface Tracked {
  entity: MessageEntity;
  lockKey: string;
}

/** A client receiver link (our sender) on an entity. */
class Consumer {
  readonly tracked = new Map<AmqpDelivery, Tracked>();
  /** ids of deliveries queued in rhea but not transferred yet (they hold credit rhea has not taken) */
  private queued: number[] = [];
  private unsubscribe: () => void;
  private pumping = false;
  closed = false;
  constructor(
    readonly id: string,
    readonly conn: Conn,
    readonly link: AmqpSender,
    readonly entity: MessageEntity,
    readonly peekLock: boolean,
    readonly sessionId: string | undefined,
    private readonly server: ServiceBusAmqpServer,
  ) {
    const offAvailable = entity.onAvailable(() => this.pump());
    const offExpired = entity.onSessionExpired((sid, owner) => {
      if (owner !== this.id || this.closed) return;
      this.close();
      // the service detaches the receiver of a session whose lock ran out
      this.link.close({
        condition: CONDITION.sessionLockLost.condition,
        description: describe(`The session lock has expired on the MessageSession. Accept a new MessageSession. Session: ${sid}.`),
      });
    });
    this.unsubscribe = () => {
      offAvailable();
      offExpired();
    };
  }

  pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (this.link.sendable() && this.creditLeft() > 0) {
        const m = this.entity.next(this.sessionId);
        if (!m) break;
        const latency = this.server.faults.decide('receive', this.entity.path);
        if (latency.some((f) => f.kind === 'drop-connection')) {
          this.entity.release(m);
          this.server.counters.add('faultDropped');
          this.server.dropConnection(this.conn);
          return;
        }
        if (this.peekLock) {
          const lock = this.entity.lock(m, this.id);
          const d = this.link.send(encodeForDelivery(m, { lockedUntil: lock.until }), reorderGuid(Buffer.from(lock.key, 'hex')), 0);
          this.tracked.set(d, { entity: this.entity, lockKey: lock.key });
          this.queued.push(d.id);
        } else {
          const bytes = encodeForDelivery(m);
          this.entity.stats.received++;
          this.entity.complete(m);
          this.queued.push(this.link.send(bytes, randomBytes(16), 0).id);
        }
        this.server.counters.add('delivered');
      }
      // rhea transfers what is queued before it answers the drain, so queued deliveries keep their credit
      if (isDraining(this.link) && this.creditLeft() > 0 && !this.entity.hasAvailable(this.sessionId)) this.link.set_drained(true);
    } finally {
      this.pumping = false;
    }
  }

  /** The link's credit less what is queued in rhea and not yet transferred. */
  private creditLeft(): number {
    const cursor = untransferredFrom(this.link);
    let i = 0;
    while (i < this.queued.length && this.queued[i] < cursor) i++;
    if (i) this.queued = this.queued.slice(i);
    return this.link.credit - this.queued.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    if (this.sessionId !== undefined) this.entity.releaseSession(this.sessionId, this.id);
  }
}

/** The SDK sends `DeadLetterReason: undefined` and the like as nulls: they set nothing. */
export function withoutNulls(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== null));
}

export interface ServerDeps {
  broker: Broker;
  auth: Authenticator;
  counters: Counters;
  faults: Faults;
  onInternalError: (err: unknown) => void;
}

/** The AMQP side of the stand-in: CBS, management, senders, receivers, settlement. */
export class ServiceBusAmqpServer {
  private server: AmqpServer | undefined;
  private readonly conns = new Map<AmqpConnection, Conn>();
  private linkIds = 0;
  readonly counters: Counters;
  readonly faults: Faults;
  private readonly broker: Broker;
  private readonly auth: Authenticator;
  private readonly consumersByLink = new Map<AmqpLink, Consumer>();
  private readonly pendingAccepts = new Set<() => void>();

  constructor(private readonly deps: ServerDeps) {
    this.counters = deps.counters;
    this.faults = deps.faults;
    this.broker = deps.broker;
    this.auth = deps.auth;
  }

  /** Starts the listeners; returns their bound ports in the same order. */
  async listen(host: string, listeners: AmqpListener[], http?: HttpRoute): Promise<number[]> {
    this.server = await listenAmqp(
      host,
      listeners,
      {
        connection_open: (ctx) => this.conn(ctx.connection),
        receiver_open: (ctx) => ctx.receiver && this.onReceiverOpen(ctx.receiver),
        sender_open: (ctx) => ctx.sender && this.onSenderOpen(ctx.sender),
        message: (ctx) => this.onMessage(ctx),
        sendable: (ctx) => ctx.sender && this.consumersByLink.get(ctx.sender)?.pump(),
        sender_flow: (ctx) => ctx.sender && this.consumersByLink.get(ctx.sender)?.pump(),
        accepted: (ctx) => this.onDisposition(ctx, 'complete'),
        rejected: (ctx) => this.onDisposition(ctx, 'deadletter'),
        modified: (ctx) => this.onDisposition(ctx, 'modified'),
        released: (ctx) => this.onDisposition(ctx, 'released'),
        sender_close: (ctx) => ctx.sender && this.onLinkClosed(ctx.sender),
        receiver_close: (ctx) => ctx.receiver && this.onLinkClosed(ctx.receiver),
        connection_close: (ctx) => this.onConnectionGone(ctx.connection),
        disconnected: (ctx) => this.onConnectionGone(ctx.connection),
        protocol_error: () => this.counters.add('malformed'),
        connection_error: () => undefined,
        session_error: () => undefined,
        sender_error: () => undefined,
        receiver_error: () => undefined,
      },
      (err) => {
        this.counters.add('malformed');
        this.deps.onInternalError(err);
      },
      http,
    );
    return this.server.ports;
  }

  async close(): Promise<void> {
    for (const c of this.conns.values()) for (const k of c.consumers) k.close();
    for (const cancel of [...this.pendingAccepts]) cancel();
    await this.server?.close();
  }

  dropAllConnections(): number {
    return this.server?.dropAll() ?? 0;
  }

  dropConnection(c: Conn): void {
    const transport = (c.raw as unknown as { socket?: { destroy(): void } }).socket;
    if (transport) transport.destroy();
    else this.server?.dropAll();
  }

  private conn(raw: AmqpConnection): Conn {
    let c = this.conns.get(raw);
    if (!c) {
      c = { id: raw.options.id, raw, claims: [], replyLinks: new Map(), consumers: new Set() };
      this.conns.set(raw, c);
      this.counters.add('connections');
    }
    return c;
  }

  private onConnectionGone(raw: AmqpConnection): void {
    const c = this.conns.get(raw);
    if (!c) return;
    this.conns.delete(raw);
    for (const k of c.consumers) {
      k.close();
      this.consumersByLink.delete(k.link);
    }
  }

  private onLinkClosed(link: AmqpLink): void {
    const k = this.consumersByLink.get(link);
    if (k) {
      k.close();
      k.conn.consumers.delete(k);
      this.consumersByLink.delete(link);
    }
    if (!link.is_closed()) link.close();
  }

  /** Refuses a link the way the service does: attach (with a null terminus), then detach with the error. */
  private refuse(link: AmqpLink, err: unknown): void {
    this.counters.add('linksRefused');
    if (link.is_sender()) link.set_source(null);
    else link.set_target(null);
    link.close(toAmqpError(err));
  }

  private resource(link: AmqpLink, address: string): string {
    const host = (link.connection as unknown as { remote?: { open?: { hostname?: string } } }).remote?.open?.hostname ?? '';
    return scopeOf(`${host}/${normalize(address)}`);
  }

  /** Throws unauthorized-access unless a live claim of the connection covers `address` with `right`. */
  private requireClaim(c: Conn, link: AmqpLink, address: string, right: Right): void {
    const resource = this.resource(link, address);
    const path = resource.split('/').slice(1).join('/');
    const now = Date.now();
    const ok = c.claims.some((cl) => {
      if (cl.expiresAt <= now) return false;
      if (!(cl.rights.has(right) || cl.rights.has('Manage'))) return false;
      const scopePath = cl.scope.split('/').slice(1).join('/');
      return scopePath === '' || scopeCovers(scopePath, path);
    });
    if (!ok)
      throw new BrokerError(
        'unauthorized',
        `Unauthorized access. '${right}' claim(s) are required to perform this operation. Resource: 'sb://${resource}'.`,
      );
  }

  private onReceiverOpen(link: AmqpReceiver): void {
    const c = this.conn(link.connection);
    const address = link.target?.address ?? '';
    try {
      if (address === '$cbs' || /\/\$management$/i.test(address) || address === '$management') {
        link.add_credit(SEND_CREDIT);
        return;
      }
      const target = this.broker.sendTarget(address);
      this.requireClaim(c, link, address, 'Send');
      prepareAttach(link, { max_message_size: target.settings.maxMessageSizeBytes });
      link.add_credit(SEND_CREDIT);
    } catch (err) {
      this.refuse(link, err);
    }
  }

  private onSenderOpen(link: AmqpSender): void {
    const c = this.conn(link.connection);
    const address = link.source?.address ?? '';
    const targetAddress = link.target?.address;
    if (address === '$cbs' || /\/?\$management$/i.test(address)) {
      c.replyLinks.set(link.name, link);
      if (targetAddress) c.replyLinks.set(targetAddress, link);
      return;
    }
    try {
      const entity = this.broker.receiveEntity(address);
      this.requireClaim(c, link, address.replace(/\/\$deadletterqueue$/i, ''), 'Listen');
      assertStatusAllows(entity.settings, 'receive', entity.path);
      const remote = remoteAttach(link);
      const peekLock = remote.snd_settle_mode !== 1;
      prepareAttach(link, {
        snd_settle_mode: peekLock ? 0 : 1,
        rcv_settle_mode: remote.rcv_settle_mode ?? 0,
        max_message_size: MAX_MESSAGE_SIZE,
      });
      const filter = link.source?.filter;
      const wantsSession = isRecord(filter) && SESSION_FILTER in filter;
      if (entity.requiresSession !== wantsSession && entity.kind !== 'deadletter') {
        throw new BrokerError(
          'notAllowed',
          entity.requiresSession
            ? `It is not possible for an entity that requires sessions to create a non-sessionful message receiver. Entity: ${entity.path}.`
            : `It is not possible for an entity that does not require sessions to create a sessionful message receiver. Entity: ${entity.path}.`,
        );
      }
      const id = `${c.id}/${++this.linkIds}`;
      if (!wantsSession) {
        this.addConsumer(new Consumer(id, c, link, entity, peekLock, undefined, this));
        return;
      }
      const requested = isRecord(filter) ? filter[SESSION_FILTER] : undefined;
      const sid = typeof requested === 'string' ? requested : undefined;
      const timeoutProp = remote.properties?.['com.microsoft:timeout'];
      const timeoutMs = typeof timeoutProp === 'number' ? timeoutProp : 60_000;
      this.acceptSession(c, link, entity, sid, id, peekLock, timeoutMs);
    } catch (err) {
      this.refuse(link, err);
    }
  }

  private acceptSession(
    c: Conn,
    link: AmqpSender,
    entity: MessageEntity,
    sid: string | undefined,
    id: string,
    peekLock: boolean,
    timeoutMs: number,
  ): void {
    const grant = (): boolean => {
      const s = entity.acceptSession(sid, id, link.name);
      if (!s) return false;
      link.set_source({ address: link.source?.address, filter: { [SESSION_FILTER]: s.id } });
      prepareAttach(link, { properties: { 'com.microsoft:locked-until-utc': ticksTyped(s.until) } });
      this.addConsumer(new Consumer(id, c, link, entity, peekLock, s.id, this));
      return true;
    };
    if (grant()) return;
    // accept-next with nothing available: the service holds the attach until a session turns up or the timeout
    deferAttach(link);
    let done = false;
    const finish = (): void => {
      done = true;
      clearTimeout(timer);
      unsubscribe();
      this.pendingAccepts.delete(cancel);
    };
    const cancel = (): void => {
      if (done) return;
      finish();
    };
    const unsubscribe = entity.onAvailable(() => {
      if (done) return;
      try {
        if (grant()) {
          finish();
          link.open();
        }
      } catch (err) {
        finish();
        link.open();
        this.refuse(link, err);
      }
    });
    const timer = setTimeout(() => {
      if (done) return;
      finish();
      link.open();
      link.set_source(null);
      link.close({
        condition: 'com.microsoft:timeout',
        description: describe(`The operation did not complete within the allocated time ${timeoutMs} ms for object session.`),
      });
    }, timeoutMs);
    timer.unref();
    this.pendingAccepts.add(cancel);
  }

  private addConsumer(k: Consumer): void {
    k.conn.consumers.add(k);
    this.consumersByLink.set(k.link, k);
    setImmediate(() => k.pump());
  }

  private onMessage(ctx: EventContext): void {
    const link = ctx.receiver;
    const delivery = ctx.delivery;
    if (!link || !delivery) return;
    const c = this.conn(ctx.connection);
    const address = link.target?.address ?? '';
    if (link.credit < SEND_CREDIT / 2) link.add_credit(SEND_CREDIT - link.credit);
    const msg = ctx.message;
    if (address === '$cbs') {
      if (isRecord(msg)) this.onCbs(c, msg);
      delivery.update(true, outcome.accepted());
      return;
    }
    if (/\$management$/i.test(address)) {
      delivery.update(true, outcome.accepted());
      if (isRecord(msg)) this.onManagement(c, link, address, msg);
      return;
    }
    this.onSend(c, link, address, delivery, ctx);
  }

  private onCbs(c: Conn, msg: Record<string, unknown>): void {
    const props = isRecord(msg.application_properties) ? msg.application_properties : {};
    const reply = (status: number, description: string): void => {
      const to = typeof msg.reply_to === 'string' ? msg.reply_to : '';
      const link = c.replyLinks.get(to) ?? c.replyLinks.get('cbs');
      if (!link) return;
      link.send(
        encodeMessage({
          correlation_id: msg.message_id,
          application_properties: { 'status-code': status, 'status-description': description },
        }),
        randomBytes(8),
        0,
      );
    };
    if (props.operation !== 'put-token') return reply(400, `The operation '${String(props.operation)}' is not supported on $cbs.`);
    try {
      const token = typeof msg.body === 'string' ? msg.body : Buffer.isBuffer(msg.body) ? msg.body.toString('utf8') : '';
      const claim = this.auth.validate(String(props.type ?? ''), token, String(props.name ?? ''));
      c.claims = c.claims.filter((cl) => cl.scope !== claim.scope || cl.expiresAt < Date.now());
      c.claims.push(claim);
      this.counters.add('cbsAccepted');
      reply(202, 'Accepted');
    } catch (err) {
      this.counters.add('cbsRejected');
      // The service's put-token refusals carry its tracking suffix, like every other error description.
      if (err instanceof TokenError) reply(err.status, describe(err.message));
      else reply(500, err instanceof Error ? err.message : String(err));
    }
  }

  private onManagement(c: Conn, link: AmqpReceiver, address: string, msg: Record<string, unknown>): void {
    const to = typeof msg.reply_to === 'string' ? msg.reply_to : '';
    const replyLink = c.replyLinks.get(to);
    const props = isRecord(msg.application_properties) ? msg.application_properties : {};
    const send = (reply: { status: number; description?: string; condition?: string; body?: Record<string, unknown> }): void => {
      if (!replyLink || !replyLink.is_open()) return;
      replyLink.send(encodeMessage(managementReplyMessage(msg, reply)), randomBytes(8), 0);
    };
    const fail = (err: unknown): void => {
      if (!(err instanceof BrokerError)) this.deps.onInternalError(err);
      const e = toAmqpError(err);
      send({ status: err instanceof BrokerError ? err.status : 500, description: e.description, condition: e.condition });
    };
    try {
      const entityAddress = address.replace(/\/?\$management$/i, '');
      const busy = this.faults.decide('management', entityAddress);
      if (busy.some((f) => f.kind === 'drop-connection')) {
        this.counters.add('faultDropped');
        return this.dropConnection(c);
      }
      if (busy.some((f) => f.kind === 'server-busy')) {
        this.counters.add('faultServerBusy');
        throw new BrokerError(
          'serverBusy',
          'The request was terminated because the entity is being throttled. Error code : 50009. Please wait 2 seconds and try again.',
        );
      }
      const result = handleManagement(this.broker, address, msg, {
        associatedLink: typeof props['associated-link-name'] === 'string' ? props['associated-link-name'] : undefined,
        requireRight: (right) => this.requireClaim(c, link, address, right),
        counters: (op) => this.counters.management(op),
      });
      if (result instanceof Promise) result.then(send, fail);
      else send(result);
    } catch (err) {
      fail(err);
    }
  }

  private onSend(c: Conn, link: AmqpReceiver, address: string, delivery: AmqpDelivery, ctx: EventContext): void {
    let target: SendTarget;
    let transfers: ParsedTransfer[];
    const reject = (err: unknown): void => {
      this.counters.add('sendRefused');
      delivery.update(true, outcome.rejected(toAmqpError(err)));
    };
    try {
      target = this.broker.sendTarget(address);
      assertStatusAllows(target.settings, 'send', target.key);
      const bytes = transferBytes(ctx.message);
      const format = ctx.format ?? delivery.format;
      if (!bytes) throw new BrokerError('decodeError', 'The message could not be read.');
      const limit = target.settings.maxMessageSizeBytes;
      if (bytes.length > limit)
        throw new BrokerError(
          'sizeExceeded',
          `The received message (delivery-id:${delivery.id}, size:${bytes.length} bytes) exceeds the limit (${limit} bytes) currently allowed on the link.`,
        );
      transfers = format === BATCH_FORMAT ? batchParts(bytes).map(parseTransfer) : [parseTransfer(bytes)];
    } catch (err) {
      if (err instanceof MalformedMessage) {
        this.counters.add('malformed');
        return reject(new BrokerError('decodeError', err.message));
      }
      return reject(err);
    }
    const faults = this.faults.decide('send', target.key);
    for (const f of faults) {
      if (f.kind === 'drop-connection') {
        this.counters.add('faultDropped');
        return this.dropConnection(c);
      }
      if (f.kind === 'server-busy') {
        this.counters.add('faultServerBusy');
        return reject(
          new BrokerError(
            'serverBusy',
            f.description ??
              'The request was terminated because the entity is being throttled. Error code : 50009. Please wait 2 seconds and try again.',
          ),
        );
      }
      if (f.kind === 'refuse-send') {
        this.counters.add('faultRefusedSend');
        this.counters.add('sendRefused');
        return delivery.update(
          true,
          outcome.rejected({
            condition: f.condition ?? 'amqp:resource-limit-exceeded',
            description: describe(f.description ?? `The send was refused (injected fault) on '${target.key}'.`),
          }),
        );
      }
    }
    const latency = faults.find((f) => f.kind === 'latency')?.latencyMs ?? 0;
    if (latency) this.counters.add('faultLatency');
    const store = (): void => {
      this.broker.send(target, transfers).then(
        () => {
          this.counters.add('sent', transfers.length);
          if (link.is_open()) delivery.update(true, outcome.accepted());
        },
        (err: unknown) => {
          if (link.is_open()) reject(err);
        },
      );
    };
    if (latency) setTimeout(store, latency).unref();
    else store();
  }

  private onDisposition(ctx: EventContext, kind: 'complete' | 'deadletter' | 'modified' | 'released'): void {
    const link = ctx.sender;
    const d = ctx.delivery;
    if (!link || !d) return;
    const k = this.consumersByLink.get(link);
    const t = k?.tracked.get(d);
    if (!k || !t) return;
    k.tracked.delete(d);
    const state: Record<string, unknown> = d.remote_state ?? {};
    try {
      // a lost session lock is reported as such, even though it took the message locks with it
      if (t.entity.requiresSession && k.sessionId !== undefined) t.entity.session(k.sessionId, k.id);
      const m = t.entity.locked(t.lockKey, t.entity.requiresSession ? k.id : undefined);
      if (kind === 'complete') {
        t.entity.complete(m);
        this.counters.add('completed');
      } else if (kind === 'deadletter') {
        const err = isRecord(state.error) ? state.error : {};
        const { DeadLetterReason: reason, DeadLetterErrorDescription: description, ...modify } = isRecord(err.info) ? err.info : {};
        t.entity.deadLetterLocked(
          m,
          {
            reason: typeof reason === 'string' ? reason : undefined,
            description: typeof description === 'string' ? description : undefined,
          },
          withoutNulls(modify),
        );
        this.counters.add('deadLettered');
      } else if (kind === 'modified') {
        const modify = isRecord(state.message_annotations) ? withoutNulls(state.message_annotations) : undefined;
        if (state.undeliverable_here === true) {
          t.entity.defer(m, modify);
          this.counters.add('deferred');
        } else {
          t.entity.abandon(m, modify);
          this.counters.add('abandoned');
        }
      } else t.entity.release(m);
      // the client's outcome is echoed; a dead-letter's without its error, which the SDK would raise
      if (!d.remote_settled)
        settleOutgoing(d, kind === 'complete' ? outcome.accepted() : kind === 'deadletter' ? outcome.rejectedBare() : undefined);
    } catch (err) {
      this.counters.add('lockLost');
      if (!d.remote_settled) settleOutgoing(d, outcome.rejected(toAmqpError(err)));
    }
    k.pump();
  }
}
