import { MasterKeyAuth } from './auth';
import type { RequestKind } from './counters';
import { EntraIdVerifier } from './entra-id';
import { unauthorized } from './errors';
import { isQueryRequest } from './feeds';
import { authorizeDataAction } from './rbac';
import { ResourceTokens } from './resource-tokens';
import type { EmulatorRequest } from './types';

/**
 * Who may send a request: a master-key signature (unless local auth is disabled, as with the
 * account property `disableLocalAuth`) or an Entra ID token (when the emulator trusts a token
 * service), the latter then subject to data-plane RBAC.
 */
export class RequestAuthorizer {
  constructor(
    readonly masterKey: MasterKeyAuth,
    private readonly resourceTokens: ResourceTokens,
    private readonly entra: EntraIdVerifier | undefined,
    private readonly accountId: string,
    /** Switchable at run time (`PUT /_admin/local-auth`), as the account property is through ARM. */
    public disableLocalAuth: boolean,
    /** Principal object id → roles; undefined = every principal of the trusted issuer contributes. */
    public roleAssignments: Record<string, string[]> | undefined,
  ) {}

  async authorize(req: EmulatorRequest, kind: RequestKind): Promise<void> {
    const type = authorizationType(req.headers['authorization']);
    if (type === 'resource') {
      // a permission's token: what the permission covers; disableLocalAuth refuses these too (they
      // derive from the keys)
      if (this.disableLocalAuth) throw unauthorized('Local Authorization is disabled. Use an AAD token to authorize all requests.');
      const token = decodeURIComponent(req.headers['authorization'] ?? '');
      const request = {
        method: req.method,
        segments: req.segments,
        kind,
        isQuery: isQueryRequest(req),
        partitionKeyHeader: req.headers['x-ms-documentdb-partitionkey'],
      };
      this.resourceTokens.verify(token, request, req.receivedAt);
      return;
    }
    if (type !== 'aad') {
      if (this.disableLocalAuth) throw unauthorized('Local Authorization is disabled. Use an AAD token to authorize all requests.');
      this.masterKey.verify(req.method, req.segments, req.headers);
      return;
    }
    if (!this.entra) {
      throw unauthorized(
        'This emulator trusts no Entra ID token service: start it with --entra-id <openid-configuration URL> (opstream emulator identity prints it), or sign requests with the master key.',
      );
    }
    const raw = decodeURIComponent(req.headers['authorization'] ?? '');
    const principal = await this.entra.verify(raw.slice(raw.indexOf('&sig=') + 5));
    authorizeDataAction(
      { method: req.method, segments: req.segments, kind, isQuery: isQueryRequest(req) },
      principal.objectId,
      this.accountId,
      this.roleAssignments,
    );
  }
}

/** `type` of a Cosmos authorization header (`type=master|aad|resource&ver=1.0&sig=…`, URL-encoded). */
function authorizationType(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    return new URLSearchParams(decodeURIComponent(raw)).get('type') ?? undefined;
  } catch {
    return undefined;
  }
}
