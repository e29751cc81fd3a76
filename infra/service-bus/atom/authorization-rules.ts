import { AuthorizationRuleSpec } from '../config';
import { XmlNode, XmlValue, isNode, text } from './xml';

/** An entity's `AuthorizationRules` element ↔ Config.json's AuthorizationRules list. */
export function authorizationRulesFromXml(node: XmlValue): AuthorizationRuleSpec[] | undefined {
  if (!isNode(node)) return undefined; // `<AuthorizationRules/>`: none
  const raw = node.AuthorizationRule;
  const list = (Array.isArray(raw) ? raw : [raw]).filter(isNode);
  return list.map((r) => {
    const rights = isNode(r.Rights) ? r.Rights.AccessRights : undefined;
    const rightList = Array.isArray(rights) ? rights.map((x) => text(x) ?? '') : [text(rights) ?? ''].filter((x) => x !== '');
    return {
      KeyName: text(r.KeyName) ?? '',
      ClaimType: text(r.ClaimType) ?? 'SharedAccessKey',
      Rights: rightList,
      PrimaryKey: text(r.PrimaryKey),
      SecondaryKey: text(r.SecondaryKey),
    };
  });
}

export function authorizationRulesXml(rules: AuthorizationRuleSpec[] | undefined): XmlValue {
  if (!rules?.length) return '';
  const now = new Date().toISOString();
  return {
    AuthorizationRule: rules.map((r): XmlNode => ({
      '@_i:type': 'SharedAccessAuthorizationRule',
      ClaimType: r.ClaimType,
      ClaimValue: 'None',
      Rights: { AccessRights: r.Rights },
      CreatedTime: now,
      ModifiedTime: now,
      KeyName: r.KeyName,
      PrimaryKey: r.PrimaryKey,
      SecondaryKey: r.SecondaryKey,
    })),
  };
}
