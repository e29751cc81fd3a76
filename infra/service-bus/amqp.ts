import {
  ContainerOptions,
  Typed as RheaTyped,
  create_container,
  message as rheaMessage,
  string_to_uuid,
  types as rheaTypes,
  uuid_to_string,
} from 'rhea';
import * as net from 'node:net';
import { ProtocolRouter } from './protocol-router';

/**
 * The one place that touches rhea's loosely typed objects. Everything else in the stand-in uses the
 * narrow interfaces below; values decoded from the wire are `unknown` until checked.
 */
export const types = rheaTypes;
export type Typed = RheaTyped;
export const encodeMessage = (m: Record<string, unknown>): Buffer => rheaMessage.encode(m);
export const decodeMessage = (b: Buffer): Record<string, unknown> => rheaMessage.decode(b) as Record<string, unknown>;
export const uuidToString = (b: Buffer): string => uuid_to_string(b);
export const stringToUuid = (s: string): Buffer => string_to_uuid(s);

export interface AmqpError {
  condition: string;
  description: string;
  info?: Record<string, unknown>;
}

export interface Terminus {
  address?: string;
  filter?: Record<string, unknown>;
}

/** An outgoing (server → client) or incoming delivery. */
export interface AmqpDelivery {
  readonly id: number;
  readonly tag: Buffer | string;
  readonly format: number;
  readonly remote_settled: boolean;
  readonly remote_state?: {
    readonly constructor: { composite_type?: string };
    error?: unknown;
    delivery_failed?: boolean;
    undeliverable_here?: boolean;
    message_annotations?: unknown;
  } & Record<string, unknown>;
  readonly link: AmqpLink;
  update(settled: boolean, state?: unknown): void;
  accept(): void;
  reject(error?: AmqpError): void;
  release(params?: Record<string, unknown>): void;
}

export interface AmqpLink {
  readonly name: string;
  readonly source?: Terminus;
  readonly target?: Terminus;
  readonly properties?: Record<string, unknown>;
  readonly snd_settle_mode: number;
  readonly rcv_settle_mode: number;
  readonly credit: number;
  readonly session: AmqpSession;
  readonly connection: AmqpConnection;
  is_sender(): boolean;
  is_open(): boolean;
  is_closed(): boolean;
  set_source(s: Record<string, unknown> | null): void;
  set_target(t: Record<string, unknown> | null): void;
  open(): void;
  close(error?: AmqpError): void;
}

export interface AmqpSender extends AmqpLink {
  sendable(): boolean;
  set_drained(drained: boolean): void;
  send(bytes: Buffer, tag: Buffer, format: number): AmqpDelivery;
}

export interface AmqpReceiver extends AmqpLink {
  add_credit(n: number): void;
}

export interface AmqpSession {
  readonly connection: AmqpConnection;
  close(error?: AmqpError): void;
}

export interface AmqpConnection {
  readonly options: { id: string };
  close(error?: AmqpError): void;
  is_open(): boolean;
}

export interface EventContext {
  connection: AmqpConnection;
  session?: AmqpSession;
  sender?: AmqpSender;
  receiver?: AmqpReceiver;
  delivery?: AmqpDelivery;
  message?: Record<string, unknown> | Buffer;
  format?: number;
  error?: unknown;
}

interface RawState {
  local_open: boolean;
  open_requests: number;
}

/** Sets what our end of a link answers in its attach (settle modes, source, target, properties, max size). */
export function prepareAttach(
  link: AmqpLink,
  fields: {
    snd_settle_mode?: number;
    rcv_settle_mode?: number;
    max_message_size?: number;
    properties?: Record<string, unknown>;
    initial_delivery_count?: number;
  },
): void {
  const local = (link as unknown as { local: { attach: Record<string, unknown> } }).local.attach;
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) local[k] = v;
}

/** Holds back the attach rhea answers at once, so it can be sent later with `link.open()`. */
export function deferAttach(link: AmqpLink): void {
  const state = (link as unknown as { state: RawState }).state;
  if (state.local_open && state.open_requests > 0) {
    state.local_open = false;
    state.open_requests--;
  }
}

export function remoteAttach(link: AmqpLink): { snd_settle_mode?: number; rcv_settle_mode?: number; properties?: Record<string, unknown> } {
  const remote = (link as unknown as { remote: { attach?: Record<string, unknown> } }).remote.attach ?? {};
  return {
    snd_settle_mode: typeof remote.snd_settle_mode === 'number' ? remote.snd_settle_mode : undefined,
    rcv_settle_mode: typeof remote.rcv_settle_mode === 'number' ? remote.rcv_settle_mode : undefined,
    properties: isRecord(remote.properties) ? remote.properties : undefined,
  };
}

/**
 * Settles a delivery we sent, with `state` (or the outcome the client gave, echoed), and forgets it.
 * The SDK receives in receiver-settle-mode "second": it sends its outcome unsettled, we settle, and it
 * settles locally without another frame. rhea keeps an outgoing delivery in the session's ring buffer
 * (2,048 entries) until the peer settles too, which never happens here: without forgetting it, a receiver
 * link stalls for good after 2,048 deliveries.
 */
export function settleOutgoing(d: AmqpDelivery, state?: unknown): void {
  const echoed = state ?? (typeof d.remote_state?.described === 'function' ? (d.remote_state.described as () => unknown)() : undefined);
  d.update(true, echoed);
  (d as unknown as { remote_settled: boolean }).remote_settled = true;
}

/**
 * The id of the next delivery rhea has yet to transfer on the sender's session. rhea takes credit only
 * when it transfers (on its next tick), so `sendable()` stays true while a loop queues deliveries: a
 * sender must count what it queued above this cursor against the credit itself.
 */
export function untransferredFrom(sender: AmqpSender): number {
  return (sender.session as unknown as { outgoing: { next_pending_delivery: number } }).outgoing.next_pending_delivery;
}

/** True when the client asked to drain (flow with drain=true). */
export function isDraining(sender: AmqpSender): boolean {
  return (sender as unknown as { _draining: boolean })._draining === true;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

export interface AmqpServer {
  close(): Promise<void>;
  /** The bound port of each listener, in the order given. */
  ports: number[];
  /** Destroys every open socket (fault injection: dropped connections). */
  dropAll(): number;
}

export type AmqpHandlers = Partial<Record<string, (ctx: EventContext) => void>>;

/** One listening socket: plain TCP (`amqp://`), or TLS (`amqps://`) with the given PEM certificate and key. */
export interface AmqpListener {
  port: number;
  tls?: { cert: string; key: string };
}

/** Where connections that speak HTTP go (the administration API), and the certificate for HTTPS on the plain port. */
export interface HttpRoute {
  server: import('node:http').Server;
  certificate(): { cert: string; key: string };
}

/**
 * A rhea container listening on loopback, SASL ANONYMOUS (and PLAIN accepted) like the official emulator.
 * Every listener feeds the same container, so a namespace reached over TLS and over plain TCP is one namespace;
 * connections that speak HTTP(S) go to `http` (see protocol-router.ts).
 */
export async function listenAmqp(
  host: string,
  listeners: AmqpListener[],
  handlers: AmqpHandlers,
  onError: (err: unknown) => void,
  http?: HttpRoute,
): Promise<AmqpServer> {
  const container = create_container({
    treat_modified_as_released: false,
    autoaccept: false,
    autosettle: false,
  } as unknown as ContainerOptions);
  container.sasl_server_mechanisms.enable_anonymous();
  container.sasl_server_mechanisms.enable_plain(() => true);
  for (const [event, fn] of Object.entries(handlers)) {
    if (!fn) continue;
    container.on(event, (ctx: unknown) => {
      try {
        fn(ctx as EventContext);
      } catch (err) {
        onError(err);
      }
    });
  }
  container.on('error', (err: unknown) => onError(err));
  const sockets = new Set<import('node:net').Socket>();
  const servers: import('node:net').Server[] = [];
  const track = (s: import('node:net').Socket): void => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const router = new ProtocolRouter({
    amqp: (socket) => container.create_connection({ host, port: 0 }).accept(socket as import('node:net').Socket),
    http: (socket) => (http ? http.server.emit('connection', socket) : socket.destroy()),
    certificate: () => (tlsCertificate ??= http?.certificate() ?? listeners.find((l) => l.tls)!.tls!),
  });
  let tlsCertificate: { cert: string; key: string } | undefined = listeners.find((l) => l.tls)?.tls;
  try {
    for (const l of listeners) {
      const server = net.createServer((socket) => {
        track(socket);
        router.route(socket, l.tls !== undefined);
      });
      servers.push(server);
      server.listen({ host, port: l.port });
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', reject);
      });
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  return {
    ports: servers.map((server, i) => {
      const addr = server.address();
      return typeof addr === 'object' && addr ? addr.port : (listeners[i] as AmqpListener).port;
    }),
    dropAll: () => {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

/** Outcomes the server puts on a delivery it settles. */
interface OutcomeFactory {
  (fields?: Record<string, unknown>): { described(): unknown };
}
const outcomes = rheaMessage as unknown as { accepted: OutcomeFactory; rejected: OutcomeFactory; released: OutcomeFactory };
export const outcome = {
  accepted: (): unknown => outcomes.accepted().described(),
  rejected: (error: AmqpError): unknown => outcomes.rejected({ error }).described(),
  /** rejected without an error: how a dead-letter request is settled */
  rejectedBare: (): unknown => outcomes.rejected().described(),
  released: (): unknown => outcomes.released().described(),
};

export interface AmqpReader {
  position: number;
  remaining(): number;
  read(): unknown;
  read_typecode(): number;
  read_uint(width: number): number;
}
export interface AmqpWriter {
  write(value: unknown): void;
  toBuffer(): Buffer;
}
const codec = types as unknown as { Reader: new (b: Buffer) => AmqpReader; Writer: new () => AmqpWriter };
export const newReader = (b: Buffer): AmqpReader => new codec.Reader(b);
export const newWriter = (): AmqpWriter => new codec.Writer();

const RAW = Symbol.for('opstream.service-bus.raw-transfer');
const MALFORMED = Symbol.for('opstream.service-bus.malformed-transfer');
type Decoder = { decode(b: Buffer): object; __opstreamRawPatch?: boolean };
/**
 * rhea decodes every format-0 transfer before the server sees it; the service keeps the sender's bytes.
 * This keeps a reference to the transfer's bytes on the decoded message (a non-enumerable symbol, invisible
 * to other rhea users in the process), and turns a decode failure into a marked empty message so that a
 * malformed transfer is refused with amqp:decode-error instead of tearing down the connection.
 */
function patchDecoder(): void {
  const m = rheaMessage as unknown as Decoder;
  if (m.__opstreamRawPatch) return;
  const original = m.decode.bind(m);
  m.decode = (b: Buffer): object => {
    let msg: object;
    try {
      msg = original(b);
    } catch {
      msg = {};
      Object.defineProperty(msg, MALFORMED, { value: true });
    }
    Object.defineProperty(msg, RAW, { value: b });
    return msg;
  };
  m.__opstreamRawPatch = true;
}
patchDecoder();

/** The bytes of a received transfer (format 0: as sent; other formats: rhea hands the bytes). */
export function transferBytes(message: unknown): Buffer | undefined {
  if (Buffer.isBuffer(message)) return message;
  if (typeof message === 'object' && message !== null) {
    const raw = (message as Record<symbol, unknown>)[RAW];
    if (Buffer.isBuffer(raw)) return raw;
  }
  return undefined;
}
