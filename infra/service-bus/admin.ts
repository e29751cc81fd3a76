import type { Authenticator } from './auth';
import * as http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { Broker } from './broker';
import { Counters } from './counters';
import { FaultRuleError, Faults, parseFaultRules } from './faults';

/**
 * Admin API on its own loopback port, `Authorization: Bearer <admin key>` on every call:
 *   GET    /faults            live fault rules          PUT /faults  a rule, an array or {rules}  DELETE /faults
 *   GET    /counters          counters by operation     DELETE /counters
 *   GET    /entities          every queue/subscription: active, deferred, scheduled, locked, dead-lettered, stats
 *   POST   /connections/drop  destroys every client connection now → {dropped}
 */
export interface AdminDeps {
  broker: Broker;
  counters: Counters;
  faults: Faults;
  key: string;
  dropConnections: () => number;
  /** Entra ID role assignments (GET/PUT /role-assignments). */
  auth: Pick<Authenticator, 'roleAssignments' | 'setRoleAssignments'>;
}

export function entityStats(broker: Broker): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const e of broker.entities.values()) {
    if (e.kind === 'deadletter') continue;
    const counts = e.counts();
    const target = e.kind === 'queue' ? e.path.toLowerCase() : undefined;
    const scheduled = target ? (broker.scheduled.get(target)?.size ?? 0) : 0;
    out.push({
      path: e.path,
      kind: e.kind,
      active: counts.active,
      deferred: counts.deferred,
      locked: counts.locked,
      scheduled,
      deadLettered: e.deadLetter?.messages.size ?? 0,
      stats: { ...e.stats },
    });
  }
  for (const [key, t] of broker.topics)
    out.push({
      path: t.name,
      kind: 'topic',
      scheduled: broker.scheduled.get(key)?.size ?? 0,
      subscriptions: t.subscriptions.map((s) => s.name),
    });
  return out;
}

export async function startAdmin(host: string, port: number, deps: AdminDeps): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body?: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      const auth = req.headers.authorization ?? '';
      const given = Buffer.from(auth.startsWith('Bearer ') ? auth.slice(7) : '');
      const want = Buffer.from(deps.key);
      if (given.length !== want.length || !timingSafeEqual(given, want))
        return send(401, { error: 'Unauthorized: send Authorization: Bearer <admin key>.' });
      const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
      const m = req.method ?? 'GET';
      try {
        if (path === '/faults') {
          if (m === 'GET') return send(200, { rules: deps.faults.list() });
          if (m === 'PUT' || m === 'POST') {
            deps.faults.set(parseFaultRules(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null')));
            return send(200, { rules: deps.faults.list() });
          }
          if (m === 'DELETE') {
            deps.faults.clear();
            return send(204);
          }
        } else if (path === '/counters') {
          if (m === 'GET') return send(200, deps.counters.snapshot());
          if (m === 'DELETE') {
            deps.counters.reset();
            return send(204);
          }
        } else if (path === '/entities' && m === 'GET') {
          return send(200, { entities: entityStats(deps.broker) });
        } else if (path === '/connections/drop' && m === 'POST') {
          return send(200, { dropped: deps.dropConnections() });
        } else if (path === '/role-assignments') {
          if (m === 'GET') return send(200, deps.auth.roleAssignments() ?? null);
          if (m === 'PUT') {
            const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
            if (!isRoleAssignments(body))
              return send(400, { error: 'Expected {"<principal object id>": ["<role name, role definition id or data action>", …]}.' });
            if (!deps.auth.roleAssignments())
              return send(409, { error: 'Entra ID is not configured on this namespace: start it with entraId (--entra-id).' });
            deps.auth.setRoleAssignments(body);
            return send(200, deps.auth.roleAssignments());
          }
        } else return send(404, { error: `Unknown admin call ${m} ${path}; see infra/service-bus/README.md.` });
        return send(405, { error: `${m} is not allowed on ${path}.` });
      } catch (err) {
        if (err instanceof FaultRuleError || err instanceof SyntaxError) return send(400, { error: err.message });
        return send(500, { error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isRoleAssignments(v: unknown): v is Record<string, string[]> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((roles) => Array.isArray(roles) && roles.every((r) => typeof r === 'string'))
  );
}
