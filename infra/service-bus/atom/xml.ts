import { XMLBuilder, XMLParser } from 'fast-xml-parser';

/** XML of the administration API (ATOM entries and feeds, Service Bus descriptions), through fast-xml-parser. */
export const NS = {
  atom: 'http://www.w3.org/2005/Atom',
  connect: 'http://schemas.microsoft.com/netservices/2010/10/servicebus/connect',
  instance: 'http://www.w3.org/2001/XMLSchema-instance',
  schema: 'http://www.w3.org/2001/XMLSchema',
  counts: 'http://schemas.microsoft.com/netservices/2011/06/servicebus',
} as const;

/** An element as the builder takes it: child elements in order, attributes under `@_name`, text under `#text`. */
export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | number | boolean | XmlNode | XmlNode[] | string[] | undefined;

export class XmlError extends Error {}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => name === 'KeyValueOfstringanyType',
});

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true });

/** A request body: the description inside `entry/content` (its element name and children, prefixes removed). */
export function parseEntry(body: string): { kind: string; fields: XmlNode } {
  let doc: unknown;
  try {
    doc = parser.parse(body, true);
  } catch (err) {
    throw new XmlError(`The request body is not well-formed XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const content = child(child(doc, 'entry'), 'content');
  const kinds = content ? Object.keys(content).filter((k) => !k.startsWith('@_') && k !== '#text') : [];
  if (!content || kinds.length !== 1)
    throw new XmlError('The request body must be an ATOM entry whose content holds one entity description.');
  const fields = content[kinds[0]];
  return { kind: kinds[0], fields: isNode(fields) ? fields : {} };
}

export function isNode(v: unknown): v is XmlNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function child(v: unknown, name: string): XmlNode | undefined {
  if (!isNode(v)) return undefined;
  const c = v[name];
  return isNode(c) ? c : undefined;
}

/** The text of an element (`<A>x</A>` parses to "x", `<A i:type="…">x</A>` to {#text: "x"}). */
export function text(v: XmlValue): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isNode(v)) {
    const t = v['#text'];
    return t === undefined ? '' : String(t as string);
  }
  return undefined;
}

export function build(root: XmlNode): string {
  return `<?xml version="1.0" encoding="utf-8"?>${builder.build(root) as string}`;
}
