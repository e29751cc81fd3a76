import { RequestAuthorizer } from './authorizer';
import { EmulatorContext } from './context';
import { badRequest, methodNotAllowed, notFound } from './errors';
import { parseFaultRules } from './faults';
import { parseJsonBody } from './items';
import { EmulatorRequest, EmulatorResponse, isJsonObject } from './types';

/**
 * Admin API under `/_admin/`, authorised with `Authorization: Bearer <master key>`:
 *   POST   /_admin/split                         {databaseId, containerId, rangeId} → {parent, children}
 *   GET    /_admin/ranges/<db>/<container>       every range, split-away ones too, with document counts
 *   GET    /_admin/faults                        the live fault rules
 *   PUT    /_admin/faults                        a rule, an array of rules or {rules: [...]} (replaces all)
 *   DELETE /_admin/faults                        clears every rule
 *   GET    /_admin/counters                      request counters by kind
 *   DELETE /_admin/counters                      resets them
 *   PUT    /_admin/local-auth                    {"disabled": true|false}: refuse master-key requests, as disableLocalAuth
 *   GET    /_admin/role-assignments              Entra ID data-plane roles by principal object id (null: everyone contributes)
 *   PUT    /_admin/role-assignments              {"<object id>": ["Cosmos DB Built-in Data Reader"|"…Contributor"|role id]} (replaces all; null: everyone)
 * Admin calls are neither counted nor faulted.
 */
export const ADMIN_PREFIX = '/_admin/';

export async function handleAdmin(ctx: EmulatorContext, auth: RequestAuthorizer, req: EmulatorRequest): Promise<EmulatorResponse> {
  auth.masterKey.verifyAdmin(req.headers);
  let parts: string[];
  try {
    parts = req.rawPath
      .slice(ADMIN_PREFIX.length)
      .split('/')
      .filter((p) => p !== '')
      .map((p) => decodeURIComponent(p));
  } catch {
    throw badRequest(`The admin path ${req.rawPath} is not a valid URI.`);
  }
  const [what, ...rest] = parts;
  const m = req.method;
  const json = (status: number, body: unknown): EmulatorResponse => ({ status, headers: {}, body: JSON.stringify(body) });
  switch (what) {
    case 'split': {
      if (m !== 'POST') throw methodNotAllowed(m, req.rawPath);
      const body = parseJsonBody(req);
      if (!isJsonObject(body)) throw badRequest('Expected {databaseId, containerId, rangeId}.');
      const { databaseId, containerId, rangeId } = body;
      if (
        typeof databaseId !== 'string' ||
        typeof containerId !== 'string' ||
        (typeof rangeId !== 'string' && typeof rangeId !== 'number')
      ) {
        throw badRequest('Expected {databaseId: string, containerId: string, rangeId: string}.');
      }
      return json(200, await ctx.store.split(databaseId, containerId, String(rangeId)));
    }
    case 'ranges': {
      if (m !== 'GET') throw methodNotAllowed(m, req.rawPath);
      if (rest.length !== 2) throw badRequest('Use GET /_admin/ranges/<databaseId>/<containerId>.');
      const c = ctx.store.container(rest[0], rest[1]);
      const meta = c.snapshotMeta();
      const live = new Map(c.liveRanges().map((r) => [r.id, r.docs.size]));
      return json(200, {
        lsn: c.lsn,
        committedLsn: c.committedLsn,
        ranges: meta.ranges.map((r) => ({ ...r, documents: live.get(r.id) ?? 0 })),
      });
    }
    case 'faults': {
      if (m === 'GET') return json(200, { rules: ctx.faults.list() });
      if (m === 'PUT' || m === 'POST') {
        const rules = parseFaultRules(parseJsonBody(req));
        ctx.faults.set(rules);
        return json(200, { rules: ctx.faults.list() });
      }
      if (m === 'DELETE') {
        ctx.faults.clear();
        return { status: 204, headers: {} };
      }
      throw methodNotAllowed(m, req.rawPath);
    }
    case 'counters': {
      if (m === 'GET') return json(200, ctx.counters.snapshot());
      if (m === 'DELETE' || (m === 'POST' && rest[0] === 'reset')) {
        ctx.counters.reset();
        return { status: 204, headers: {} };
      }
      throw methodNotAllowed(m, req.rawPath);
    }
    case 'local-auth': {
      if (m === 'GET') return json(200, { disabled: auth.disableLocalAuth });
      if (m !== 'PUT') throw methodNotAllowed(m, req.rawPath);
      const body = parseJsonBody(req);
      if (!isJsonObject(body) || typeof body.disabled !== 'boolean') throw badRequest('Expected {"disabled": true|false}.');
      auth.disableLocalAuth = body.disabled;
      return json(200, { disabled: auth.disableLocalAuth });
    }
    case 'role-assignments': {
      if (m === 'GET') return json(200, auth.roleAssignments ?? null);
      if (m !== 'PUT') throw methodNotAllowed(m, req.rawPath);
      const body = parseJsonBody(req);
      if (body !== null && !isRoleAssignments(body))
        throw badRequest('Expected null or {"<principal object id>": ["<role name or id>", …]}.');
      auth.roleAssignments = body ?? undefined;
      return json(200, auth.roleAssignments ?? null);
    }
    default:
      throw notFound(`Unknown admin call ${req.rawPath}; see infra/cosmos-emulator/README.md.`);
  }
}

export function isAdminPath(path: string): boolean {
  return path === '/_admin' || path.startsWith(ADMIN_PREFIX);
}

function isRoleAssignments(value: unknown): value is Record<string, string[]> {
  return isJsonObject(value) && Object.values(value).every((roles) => Array.isArray(roles) && roles.every((r) => typeof r === 'string'));
}
