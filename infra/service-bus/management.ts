import { isRecord, stringToUuid, types } from './amqp';
import { Right } from './auth';
import { Broker, SendTarget } from './broker';
import { MessageEntity } from './entity';
import { BrokerError } from './errors';
import { BrokerMessage, encodeForDelivery } from './message';
import { ruleDescription, ruleFromRequest } from './rules';
import { parseTransfer } from './sections';

/**
 * `<entity>/$management` request/response operations the SDK uses. A request has
 * `application_properties.operation` and a map body; the reply carries `statusCode`,
 * `statusDescription` (and `errorCondition` on failure) and a map body.
 */
export interface ManagementReply {
  status: number;
  description?: string;
  condition?: string;
  body?: Record<string, unknown>;
}

export interface ManagementCaller {
  /** the receiver link the request is for (`associated-link-name`), if any */
  associatedLink?: string;
  requireRight(right: Right): void;
  counters: (op: string) => void;
}

function num(v: unknown, what: string): number {
  if (typeof v === 'number') return v;
  if (Buffer.isBuffer(v) && v.length === 8) return Number(v.readBigInt64BE());
  throw new BrokerError('argument', `${what} must be a number.`);
}

function list(v: unknown, what: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new BrokerError('argument', `${what} must be an array.`);
}

function lockKey(v: unknown): string {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (typeof v === 'string') return stringToUuid(v).toString('hex');
  throw new BrokerError('argument', 'lock-tokens must hold uuids.');
}

function optString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

const ok = (body?: Record<string, unknown>): ManagementReply => ({ status: 200, description: 'OK', body });

export function handleManagement(
  broker: Broker,
  address: string,
  request: Record<string, unknown>,
  caller: ManagementCaller,
): ManagementReply | Promise<ManagementReply> {
  const props = isRecord(request.application_properties) ? request.application_properties : {};
  const op = typeof props.operation === 'string' ? props.operation : '';
  const body = isRecord(request.body) ? request.body : {};
  const entityAddress = address.replace(/\/\$management$/i, '');
  const { entity, target } = broker.managementTarget(entityAddress);
  caller.counters(op.replace(/^com\.microsoft:/, ''));
  const needEntity = (): MessageEntity => {
    if (!entity) throw new BrokerError('notAllowed', `The operation ${op} is not supported on a topic.`);
    return entity;
  };
  const needTarget = (): SendTarget => {
    if (!target) throw new BrokerError('notAllowed', `The operation ${op} needs a queue or a topic.`);
    return target;
  };
  const needSubscription = (): NonNullable<ReturnType<Broker['subscriptionOf']>> => {
    const sub = entity && broker.subscriptionOf(entity);
    if (!sub) throw new BrokerError('notAllowed', `The operation ${op} is only supported on a subscription.`);
    return sub;
  };
  const sessionId = optString(body['session-id']);
  switch (op) {
    case 'com.microsoft:renew-lock': {
      caller.requireRight('Listen');
      const e = needEntity();
      const expirations = list(body['lock-tokens'], 'lock-tokens').map((t) => e.renew(lockKey(t)));
      return ok({ expirations: types.wrap_array(expirations, 0x83, undefined) });
    }
    case 'com.microsoft:peek-message': {
      caller.requireRight('Listen');
      const from = num(body['from-sequence-number'], 'from-sequence-number');
      const count = num(body['message-count'], 'message-count');
      const found: BrokerMessage[] = [];
      if (entity) found.push(...entity.peek(from, count, sessionId));
      if (target && target.kind === 'queue') found.push(...broker.scheduledPeek(target).filter((m) => m.seq >= from));
      found.sort((a, b) => a.seq - b.seq);
      const msgs = found.slice(0, count);
      if (!msgs.length) return { status: 204, description: 'No Content' };
      // PeekMessagesOptions.omitMessageBody: the messages come back without their body sections
      const omitBody = body['omit-message-body'] === true;
      return ok({ messages: msgs.map((m) => types.wrap_map({ message: encodeForDelivery(m, { lockedUntil: m.lock?.until, omitBody }) })) });
    }
    case 'com.microsoft:schedule-message': {
      caller.requireRight('Send');
      const t = needTarget();
      const entries = list(body.messages, 'messages');
      const transfers = entries.map((en) => {
        if (!isRecord(en) || !Buffer.isBuffer(en.message)) throw new BrokerError('argument', 'messages[] must hold {message: binary}.');
        // the entity's size limit holds for scheduled messages as for sent ones
        const limit = t.settings.maxMessageSizeBytes;
        if (en.message.length > limit)
          throw new BrokerError(
            'sizeExceeded',
            `The scheduled message (size:${en.message.length} bytes) exceeds the limit (${limit} bytes) currently allowed on the entity.`,
          );
        return parseTransfer(en.message);
      });
      return broker.send(t, transfers).then(scheduledReply);
    }
    case 'com.microsoft:cancel-scheduled-message': {
      caller.requireRight('Send');
      const seqs = list(body['sequence-numbers'], 'sequence-numbers').map((s) => num(s, 'sequence-numbers'));
      broker.cancelScheduled(needTarget(), seqs);
      return ok();
    }
    case 'com.microsoft:receive-by-sequence-number': {
      caller.requireRight('Listen');
      const e = needEntity();
      const seqs = list(body['sequence-numbers'], 'sequence-numbers').map((s) => num(s, 'sequence-numbers'));
      const mode = typeof body['receiver-settle-mode'] === 'number' ? body['receiver-settle-mode'] : 1;
      if (e.requiresSession) e.session(sessionId ?? '', caller.associatedLink);
      const msgs = e.takeDeferred(seqs, sessionId);
      const out = msgs.map((m) => {
        if (mode === 0) {
          const bytes = encodeForDelivery(m);
          e.complete(m);
          return types.wrap_map({ message: bytes });
        }
        const lock = e.lock(m, caller.associatedLink);
        return types.wrap_map({
          message: encodeForDelivery(m, { lockedUntil: lock.until }),
          'lock-token': types.wrap_uuid(Buffer.from(lock.key, 'hex')),
        });
      });
      return ok({ messages: out });
    }
    case 'com.microsoft:update-disposition': {
      caller.requireRight('Listen');
      const e = needEntity();
      const status = optString(body['disposition-status']);
      const modify = isRecord(body['properties-to-modify']) ? body['properties-to-modify'] : undefined;
      if (e.requiresSession && sessionId !== undefined) e.session(sessionId, caller.associatedLink);
      for (const t of list(body['lock-tokens'], 'lock-tokens')) {
        const m = e.locked(lockKey(t), e.requiresSession ? caller.associatedLink : undefined);
        if (status === 'completed') e.complete(m);
        else if (status === 'abandoned') e.abandon(m, modify);
        else if (status === 'defered' || status === 'deferred') e.defer(m, modify);
        else if (status === 'suspended')
          e.deadLetterLocked(
            m,
            { reason: optString(body['deadletter-reason']), description: optString(body['deadletter-description']) },
            modify,
          );
        else throw new BrokerError('argument', `Unknown disposition-status ${String(status)}.`);
      }
      return ok();
    }
    case 'com.microsoft:renew-session-lock': {
      caller.requireRight('Listen');
      const until = needEntity().renewSession(sessionId ?? '', caller.associatedLink);
      return ok({ expiration: types.wrap_timestamp(until) });
    }
    case 'com.microsoft:set-session-state': {
      caller.requireRight('Listen');
      const st = body['session-state'];
      needEntity().setSessionState(sessionId ?? '', caller.associatedLink, Buffer.isBuffer(st) ? st : undefined);
      return ok();
    }
    case 'com.microsoft:get-session-state': {
      caller.requireRight('Listen');
      const s = needEntity().session(sessionId ?? '', caller.associatedLink);
      return ok({ 'session-id': s.id, 'session-state': s.state ? types.wrap_binary(s.state) : null });
    }
    case 'com.microsoft:enumerate-sessions': {
      caller.requireRight('Listen');
      const e = needEntity();
      const ids = [...new Set([...e.messages.values()].map((m) => m.fields.sessionId).filter((s): s is string => s !== undefined))];
      return ok({ skip: 0, 'sessions-ids': ids });
    }
    case 'com.microsoft:add-rule': {
      caller.requireRight('Manage');
      const sub = needSubscription();
      const rule = ruleFromRequest(body);
      if (sub.rules.some((r) => r.name.toLowerCase() === rule.name.toLowerCase())) {
        throw new BrokerError('alreadyExists', `The messaging entity '${entityAddress}/Rules/${rule.name}' already exists.`);
      }
      return broker.setRules(sub, [...sub.rules, rule]).then(() => ok());
    }
    case 'com.microsoft:remove-rule': {
      caller.requireRight('Manage');
      const sub = needSubscription();
      const name = optString(body['rule-name']) ?? '';
      const i = sub.rules.findIndex((r) => r.name.toLowerCase() === name.toLowerCase());
      if (i < 0) throw new BrokerError('notFound', `The messaging entity '${entityAddress}/Rules/${name}' could not be found.`);
      return broker
        .setRules(
          sub,
          sub.rules.filter((_, j) => j !== i),
        )
        .then(() => ok());
    }
    case 'com.microsoft:enumerate-rules': {
      caller.requireRight('Manage');
      const sub = needSubscription();
      const top = body.top === undefined ? Infinity : num(body.top, 'top');
      const skip = body.skip === undefined ? 0 : num(body.skip, 'skip');
      // by name, ordinal (the order the service lists them in)
      const page = [...sub.rules].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(skip, skip + top);
      if (!page.length) return { status: 204, description: 'No Content' };
      return ok({ rules: page.map((r) => types.wrap_map({ 'rule-description': ruleDescription(r) })) });
    }
    default:
      throw new BrokerError('notImplemented', `The management operation '${op}' is not supported by this stand-in (see its README).`);
  }
}

/** The reply message for a management request. */
export function managementReplyMessage(request: Record<string, unknown>, reply: ManagementReply): Record<string, unknown> {
  const props: Record<string, unknown> = { statusCode: reply.status, statusDescription: reply.description ?? '' };
  if (reply.condition) props.errorCondition = types.wrap_symbol(reply.condition);
  return {
    correlation_id: request.message_id,
    to: request.reply_to,
    application_properties: props,
    body: reply.body ? types.wrap_map(reply.body) : undefined,
  };
}

function scheduledReply(seqs: number[]): ManagementReply {
  return ok({ 'sequence-numbers': types.wrap_array(seqs, 0x81, undefined) });
}
