import schema from '../../../schemas/config.schema.json';
import { loadConfig } from '../../../src/config/load-config';
import { SETTINGS } from '../../../src/config/settings';
import { SETTING_SHAPES } from '../../../src/config/setting-shapes';

/** A value of the wrong shape is told what shape is wanted, in words, never the schema's regular expression. */
interface Node {
  pattern?: string;
  format?: string;
  properties?: Record<string, Node>;
}

function constrained(node: Node, path: string[] = []): Array<{ key: string; pattern?: string }> {
  if (node.properties) return Object.entries(node.properties).flatMap(([name, child]) => constrained(child, [...path, name]));
  return node.pattern !== undefined || node.format !== undefined ? [{ key: path.join('.'), pattern: node.pattern }] : [];
}

const withShape = constrained(schema as Node);

describe('setting shapes', () => {
  it('every setting with a pattern or format has its shape in words, and every shape is a setting of that kind', () => {
    expect(withShape.length).toBeGreaterThan(5);
    expect(Object.keys(SETTING_SHAPES).sort()).toEqual(withShape.map((s) => s.key).sort());
  });

  it.each(withShape.map((s) => [s.key, s.pattern] as const))('a bad %s is told its shape, not the expression', (key, pattern) => {
    const setting = SETTINGS.find((s) => s.key === key);
    if (!setting) throw new Error(`no setting ${key}`);
    let message = '';
    try {
      loadConfig({ env: { [setting.env]: ' not:valid/ ' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`setting ${key} (environment ${setting.env}) must be ${SETTING_SHAPES[key]}`);
    if (pattern) expect(message).not.toContain(pattern);
  });
});
