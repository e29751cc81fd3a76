import { parseCsHref } from '../../domain/ids';
import type { ClustersServiceView } from './report';

type CsKind = ClustersServiceView['kind'];

const WORDS: Record<CsKind, string> = {
  cluster: 'cluster',
  nodePool: 'node pool',
  externalAuth: 'external auth',
  breakGlassCredential: 'break-glass credential',
};

/** What a Clusters Service href names; a cluster when it cannot be parsed (the caller shows the href as it is). */
export function csKindOf(href: string): CsKind {
  try {
    const parsed = parseCsHref(href);
    if (parsed.nodePoolId !== undefined) return 'nodePool';
    if (parsed.externalAuthId !== undefined) return 'externalAuth';
    if (parsed.credentialId !== undefined) return 'breakGlassCredential';
  } catch {
    // not an href opstream knows: said as a cluster's, with the href beside it
  }
  return 'cluster';
}

/** The kind in an SRE's words ("node pool", "external auth"). */
export function csKindWords(kind: CsKind): string {
  return WORDS[kind];
}
