import { randomBytes } from 'node:crypto';
import { EntitySettings } from './config';
import { Deadlines } from './deadlines';
import { BrokerError } from './errors';
import { BrokerMessage, MessageLock } from './message';
import { readBare, withApplicationProperties } from './sections';

/** Where state changes go when a journal is attached (the broker provides it). */
export interface Persistence {
  put(entity: MessageEntity, m: BrokerMessage): Promise<void> | undefined;
  del(entity: MessageEntity, seq: number): void;
  upd(entity: MessageEntity, m: BrokerMessage): void;
  ses(entity: MessageEntity, sessionId: string, state: Buffer | undefined): void;
}

export interface SessionInfo {
  id: string;
  owner?: string;
  ownerName?: string;
  until: number;
  state?: Buffer;
}

/** Sequence numbers in ascending order; stale entries are skipped by the reader. */
class SeqQueue {
  private arr: number[] = [];
  private head = 0;
  push(seq: number): void {
    const a = this.arr;
    if (a.length === this.head || a[a.length - 1] < seq) {
      a.push(seq);
      return;
    }
    let lo = this.head;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    a.splice(lo, 0, seq);
  }
  peek(): number | undefined {
    return this.head < this.arr.length ? this.arr[this.head] : undefined;
  }
  shift(): void {
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.arr.length) {
      this.arr = this.arr.slice(this.head);
      this.head = 0;
    }
  }
  get size(): number {
    return this.arr.length - this.head;
  }
}

export type EntityKind = 'queue' | 'subscription' | 'deadletter';

export interface DeadLetterInfo {
  reason?: string;
  description?: string;
}

/** `propertiesToModify` of an abandon, defer or dead-letter: application properties to set on the message. */
export type PropertiesToModify = Record<string, unknown> | undefined;

/**
 * A queue, a topic subscription, or the dead-letter sub-queue of one of them: its messages by sequence
 * number, what is available (per session on session entities), locks, deferred messages, sessions.
 */
export class MessageEntity {
  readonly messages = new Map<number, BrokerMessage>();
  readonly locks = new Map<string, BrokerMessage>();
  readonly sessions = new Map<string, SessionInfo>();
  private readonly available = new Map<string, SeqQueue>();
  private readonly wakers = new Set<() => void>();
  /** told when a session lock runs out (the service then detaches its receiver with session-lock-lost) */
  private readonly sessionExpiry = new Set<(sessionId: string, owner: string) => void>();
  deadLetter: MessageEntity | undefined;
  /** ForwardDeadLetteredMessagesTo: takes a dead-lettered message elsewhere (true when it did). */
  forwardDeadLetter: ((m: BrokerMessage) => boolean) | undefined;
  /** told when a receiver takes a message (the entity is not idle) */
  onUse: (() => void) | undefined;
  /** counters for stats */
  stats = { received: 0, completed: 0, abandoned: 0, deadLettered: 0, deferred: 0, expired: 0, lockExpired: 0 };

  constructor(
    readonly path: string,
    readonly kind: EntityKind,
    readonly settings: EntitySettings,
    private readonly deadlines: Deadlines,
    private readonly persist: Persistence,
    private readonly now: () => number,
  ) {}

  get requiresSession(): boolean {
    return this.settings.requiresSession && this.kind !== 'deadletter';
  }

  onAvailable(fn: () => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  onSessionExpired(fn: (sessionId: string, owner: string) => void): () => void {
    this.sessionExpiry.add(fn);
    return () => this.sessionExpiry.delete(fn);
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  private sessionKey(m: BrokerMessage): string {
    return this.requiresSession ? (m.fields.sessionId ?? '') : '';
  }

  /** Adds a message (already persisted by the caller when needed). */
  insert(m: BrokerMessage, restoring = false): void {
    this.messages.set(m.seq, m);
    if (m.state === 'active') this.makeAvailable(m, restoring);
    if (Number.isFinite(m.expiresAt) && this.kind !== 'deadletter') this.deadlines.add(m.expiresAt, () => this.checkExpired(m));
  }

  private makeAvailable(m: BrokerMessage, quiet = false): void {
    const key = this.sessionKey(m);
    let q = this.available.get(key);
    if (!q) this.available.set(key, (q = new SeqQueue()));
    q.push(m.seq);
    if (!quiet) this.wake();
  }

  private isAvailable(m: BrokerMessage | undefined): m is BrokerMessage {
    return m !== undefined && m.state === 'active' && m.lock === undefined;
  }

  private expired(m: BrokerMessage, now: number): boolean {
    return this.kind !== 'deadletter' && m.expiresAt <= now;
  }

  private checkExpired(m: BrokerMessage): void {
    if (this.messages.get(m.seq) !== m || m.lock || m.state === 'scheduled') return;
    if (this.expired(m, this.now())) this.expire(m);
  }

  private expire(m: BrokerMessage): void {
    this.stats.expired++;
    if (this.settings.deadLetterOnExpiration && this.deadLetter) {
      this.moveToDeadLetter(m, { reason: 'TTLExpiredException', description: 'The message expired and was dead lettered.' });
    } else this.remove(m);
  }

  /** The next available message (of a session on session entities); expired ones are dealt with on the way. */
  next(sessionId: string | undefined): BrokerMessage | undefined {
    const q = this.available.get(this.requiresSession ? (sessionId ?? '') : '');
    if (!q) return undefined;
    const now = this.now();
    for (;;) {
      const seq = q.peek();
      if (seq === undefined) return undefined;
      q.shift();
      const m = this.messages.get(seq);
      if (!this.isAvailable(m)) continue;
      if (this.expired(m, now)) {
        this.expire(m);
        continue;
      }
      this.onUse?.();
      return m;
    }
  }

  hasAvailable(sessionId?: string): boolean {
    const q = this.available.get(this.requiresSession ? (sessionId ?? '') : '');
    return q !== undefined && q.size > 0;
  }

  lock(m: BrokerMessage, owner: string | undefined): MessageLock {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const until = this.requiresSession
      ? (this.sessions.get(m.fields.sessionId ?? '')?.until ?? this.now())
      : this.now() + this.settings.lockDurationMs;
    const lock: MessageLock = { key: bytes.toString('hex'), until, owner };
    m.lock = lock;
    this.locks.set(lock.key, m);
    this.stats.received++;
    if (!this.requiresSession) this.deadlines.add(until, () => this.checkLock(m, lock));
    return lock;
  }

  private checkLock(m: BrokerMessage, lock: MessageLock): void {
    if (m.lock !== lock) return;
    if (lock.until > this.now()) {
      this.deadlines.add(lock.until, () => this.checkLock(m, lock));
      return;
    }
    this.stats.lockExpired++;
    this.lockLost(m);
  }

  /** A lock ran out (or its session was lost): delivery count +1, then available again or dead-lettered. */
  private lockLost(m: BrokerMessage): void {
    this.unlock(m);
    this.bumpAndRelease(m);
  }

  private unlock(m: BrokerMessage): void {
    if (m.lock) this.locks.delete(m.lock.key);
    m.lock = undefined;
  }

  private bumpAndRelease(m: BrokerMessage): void {
    m.deliveryCount++;
    if (this.kind !== 'deadletter' && m.deliveryCount >= this.settings.maxDeliveryCount && this.deadLetter) {
      this.moveToDeadLetter(m, {
        reason: 'MaxDeliveryCountExceeded',
        description: `Message could not be consumed after ${this.settings.maxDeliveryCount} delivery attempts.`,
      });
      return;
    }
    this.persist.upd(this, m);
    if (m.state === 'active') this.makeAvailable(m);
  }

  /** Finds the locked message for a lock token, checking the lock (and session lock) still holds. */
  locked(key: string, sessionOwner?: string): BrokerMessage {
    const m = this.locks.get(key);
    const now = this.now();
    if (!m || !m.lock)
      throw new BrokerError(
        'lockLost',
        'The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.',
      );
    if (this.requiresSession) {
      const s = this.sessions.get(m.fields.sessionId ?? '');
      if (!s || s.until <= now || (sessionOwner !== undefined && s.owner !== sessionOwner && s.ownerName !== sessionOwner)) {
        throw new BrokerError(
          'sessionLockLost',
          `The session lock has expired on the MessageSession. Accept a new MessageSession. Session: ${m.fields.sessionId ?? ''}.`,
        );
      }
    } else if (m.lock.until <= now) {
      this.stats.lockExpired++;
      this.lockLost(m);
      throw new BrokerError(
        'lockLost',
        'The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.',
      );
    }
    return m;
  }

  complete(m: BrokerMessage): void {
    this.stats.completed++;
    this.remove(m);
  }

  abandon(m: BrokerMessage, props?: PropertiesToModify): void {
    this.stats.abandoned++;
    this.unlock(m);
    this.modify(m, props);
    this.bumpAndRelease(m);
  }

  /** Applies `propertiesToModify` to the message's application properties (journaled as a new copy). */
  private modify(m: BrokerMessage, props: PropertiesToModify): void {
    if (!props || !Object.keys(props).length) return;
    m.bare = withApplicationProperties(m.bare, props);
    m.fields = readBare(m.bare);
    void this.persist.put(this, m);
  }

  /** Released without an outcome (the client gave it back): available again, delivery count unchanged. */
  release(m: BrokerMessage): void {
    this.unlock(m);
    if (m.state === 'active') this.makeAvailable(m);
  }

  /** Deferred: the delivery that ends here counts (the service's count is 1 when it is received by sequence number). */
  defer(m: BrokerMessage, props?: PropertiesToModify): void {
    this.stats.deferred++;
    this.unlock(m);
    this.modify(m, props);
    m.deliveryCount++;
    m.state = 'deferred';
    this.persist.upd(this, m);
  }

  deadLetterLocked(m: BrokerMessage, info: DeadLetterInfo, props?: PropertiesToModify): void {
    if (!this.deadLetter) throw new BrokerError('notAllowed', 'Cannot dead-letter a message of a dead-letter queue.');
    this.unlock(m);
    this.moveToDeadLetter(m, info, props);
  }

  private moveToDeadLetter(m: BrokerMessage, info: DeadLetterInfo, modify?: PropertiesToModify): void {
    const dlq = this.deadLetter!;
    this.stats.deadLettered++;
    this.remove(m);
    const props: Record<string, unknown> = { ...modify };
    if (info.reason !== undefined) props.DeadLetterReason = info.reason;
    if (info.description !== undefined) props.DeadLetterErrorDescription = info.description;
    const bare = Object.keys(props).length ? withApplicationProperties(m.bare, props) : m.bare;
    const copy: BrokerMessage = {
      ...m,
      bare,
      fields: Object.keys(props).length ? readBare(bare) : m.fields,
      lock: undefined,
      state: 'active',
      deadLetterSource: this.path,
    };
    if (this.forwardDeadLetter?.(copy)) return;
    void dlq.persist.put(dlq, copy);
    dlq.insert(copy);
  }

  remove(m: BrokerMessage): void {
    this.unlock(m);
    if (this.messages.delete(m.seq)) this.persist.del(this, m.seq);
  }

  /** Deferred messages by sequence number, locked for the caller (peek-lock) or removed (receive-and-delete). */
  takeDeferred(seqs: number[], sessionId: string | undefined): BrokerMessage[] {
    return seqs.map((seq) => {
      const m = this.messages.get(seq);
      if (!m || m.state !== 'deferred' || (this.requiresSession && (m.fields.sessionId ?? '') !== (sessionId ?? ''))) {
        throw new BrokerError('messageNotFound', `Failed to retrieve the deferred message with sequence number ${seq}: not found.`);
      }
      if (m.lock) throw new BrokerError('lockLost', `The deferred message ${seq} is locked by another receiver.`);
      return m;
    });
  }

  peek(from: number, count: number, sessionId: string | undefined): BrokerMessage[] {
    const out: BrokerMessage[] = [];
    const seqs = [...this.messages.keys()].filter((s) => s >= from).sort((a, b) => a - b);
    for (const s of seqs) {
      const m = this.messages.get(s)!;
      if (sessionId !== undefined && (m.fields.sessionId ?? '') !== sessionId) continue;
      out.push(m);
      if (out.length >= count) break;
    }
    return out;
  }

  renew(key: string): number {
    const m = this.locked(key);
    if (this.requiresSession)
      throw new BrokerError('notAllowed', 'Renewing a message lock is not supported on session entities; renew the session lock.');
    m.lock!.until = this.now() + this.settings.lockDurationMs;
    return m.lock!.until;
  }

  // --- sessions ---

  /** Locks a session for `owner`: the given one, or the next one with available messages. */
  acceptSession(sessionId: string | undefined, owner: string, ownerName: string): SessionInfo | undefined {
    const now = this.now();
    let id = sessionId;
    if (id === undefined) {
      let best: { id: string; seq: number } | undefined;
      for (const [sid, q] of this.available) {
        const s = this.sessions.get(sid);
        if (s?.owner && s.until > now) continue;
        const seq = this.firstAvailableSeq(sid, q);
        if (seq !== undefined && (!best || seq < best.seq)) best = { id: sid, seq };
      }
      if (!best) return undefined;
      id = best.id;
    }
    let s = this.sessions.get(id);
    if (s?.owner && s.until > now && s.owner !== owner) {
      throw new BrokerError(
        'sessionCannotBeLocked',
        `The requested session '${id}' cannot be accepted. It may be locked by another receiver.`,
      );
    }
    if (!s) this.sessions.set(id, (s = { id, until: 0 }));
    if (s.owner && s.owner !== owner) this.loseSession(s);
    s.owner = owner;
    s.ownerName = ownerName;
    s.until = now + this.settings.lockDurationMs;
    const locked = s;
    this.deadlines.add(s.until, () => this.checkSession(locked, owner));
    return s;
  }

  private firstAvailableSeq(sid: string, q: SeqQueue): number | undefined {
    for (;;) {
      const seq = q.peek();
      if (seq === undefined) return undefined;
      const m = this.messages.get(seq);
      if (this.isAvailable(m) && (m.fields.sessionId ?? '') === sid) return seq;
      q.shift();
    }
  }

  private checkSession(s: SessionInfo, owner: string): void {
    if (s.owner !== owner) return;
    if (s.until > this.now()) {
      this.deadlines.add(s.until, () => this.checkSession(s, owner));
      return;
    }
    this.loseSession(s);
    for (const fn of [...this.sessionExpiry]) fn(s.id, owner);
  }

  /** The session lock is gone: its locked messages lose their locks (delivery count +1). */
  private loseSession(s: SessionInfo): void {
    s.owner = undefined;
    s.ownerName = undefined;
    for (const m of [...this.locks.values()]) if ((m.fields.sessionId ?? '') === s.id) this.lockLost(m);
    this.wake();
  }

  releaseSession(sessionId: string, owner: string): void {
    const s = this.sessions.get(sessionId);
    if (s && s.owner === owner) this.loseSession(s);
  }

  session(sessionId: string, caller: string | undefined): SessionInfo {
    const s = this.sessions.get(sessionId);
    if (!s || !s.owner || s.until <= this.now() || (caller !== undefined && s.owner !== caller && s.ownerName !== caller)) {
      throw new BrokerError(
        'sessionLockLost',
        `The session lock has expired on the MessageSession. Accept a new MessageSession. Session: ${sessionId}.`,
      );
    }
    return s;
  }

  renewSession(sessionId: string, caller: string | undefined): number {
    const s = this.session(sessionId, caller);
    s.until = this.now() + this.settings.lockDurationMs;
    return s.until;
  }

  setSessionState(sessionId: string, caller: string | undefined, state: Buffer | undefined): void {
    const s = this.session(sessionId, caller);
    s.state = state;
    this.persist.ses(this, sessionId, state);
  }

  restoreSessionState(sessionId: string, state: Buffer | undefined): void {
    let s = this.sessions.get(sessionId);
    if (!s) this.sessions.set(sessionId, (s = { id: sessionId, until: 0 }));
    s.state = state;
  }

  counts(): { active: number; deferred: number; scheduled: number; locked: number } {
    let active = 0;
    let deferred = 0;
    let scheduled = 0;
    for (const m of this.messages.values()) {
      if (m.state === 'active') active++;
      else if (m.state === 'deferred') deferred++;
      else scheduled++;
    }
    return { active, deferred, scheduled, locked: this.locks.size };
  }
}
