import type { CsExternalAuth, CsExternalAuthCreateRequest, CsExternalAuthUpdateRequest, ExternalAuthProperties } from '../../src/kit';

/** What Clusters Service holds of an external auth that the frontend decides: its create body without `id`. */
type Desired = Omit<CsExternalAuthCreateRequest, 'id'>;

/**
 * The Resource's properties (ARM's camelCase, as the frontend writes them) in Clusters Service's
 * shape. ARM enum values compare ignoring case: a client type is sent lower-cased, and a username
 * prefix policy of `None` is CS's empty one.
 */
export function desiredExternalAuth(p: ExternalAuthProperties): Desired {
  const { username, groups } = p.claim.mappings;
  const policy = username.prefixPolicy === 'None' ? '' : username.prefixPolicy;
  return {
    issuer: { url: p.issuer.url, audiences: [...p.issuer.audiences], ...(p.issuer.ca ? { ca: p.issuer.ca } : {}) },
    clients: (p.clients ?? []).map((c) => ({
      component: { name: c.component.name, namespace: c.component.authClientNamespace },
      id: c.clientId,
      type: c.type.toLowerCase() as 'public' | 'confidential',
      ...(c.extraScopes?.length ? { extra_scopes: [...c.extraScopes] } : {}),
    })),
    claim: {
      mappings: {
        username: {
          claim: username.claim,
          ...(username.prefix ? { prefix: username.prefix } : {}),
          ...(policy ? { prefix_policy: policy } : {}),
        },
        ...(groups ? { groups: { claim: groups.claim, ...(groups.prefix ? { prefix: groups.prefix } : {}) } } : {}),
      },
      ...(p.claim.validationRules?.length
        ? {
            validation_rules: p.claim.validationRules.map((r) => ({
              claim: r.requiredClaim.claim,
              required_value: r.requiredClaim.requiredValue,
            })),
          }
        : {}),
    },
  };
}

/**
 * The PATCH that brings what Clusters Service holds to what the Resource asks: each of issuer,
 * clients and claim that differs, whole (CS replaces a field it is sent). Empty when nothing differs.
 */
export function externalAuthPatch(desired: Desired, held: CsExternalAuth): CsExternalAuthUpdateRequest {
  const patch: CsExternalAuthUpdateRequest = {};
  const now: Desired = { issuer: held.issuer, clients: held.clients ?? [], claim: held.claim ?? { mappings: { username: { claim: '' } } } };
  if (!sameValue(desired.issuer, now.issuer)) patch.issuer = desired.issuer;
  if (!sameValue(desired.clients ?? [], now.clients ?? [])) patch.clients = desired.clients ?? [];
  if (!sameValue(desired.claim, now.claim)) patch.claim = desired.claim;
  return patch;
}

/** Deep equality of JSON values, object keys in any order and absent keys equal to empty values. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => !isEmpty(x))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}
