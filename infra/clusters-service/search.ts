/**
 * The subset of the OCM search language the simulator understands: `field = 'value'` comparisons
 * joined by `and` (any casing), values single-quoted with `''` standing for one quote. Anything
 * else is a SearchSyntaxError, which the server answers with 400.
 */

export interface SearchTerm {
  readonly field: string;
  readonly value: string;
}

export class SearchSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'SearchSyntaxError';
  }
}

const FIELD = /[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*/iy;
const SPACE = /\s*/y;

/** Parses an expression into its terms (all must hold). An empty expression has no terms. */
export function parseSearch(expression: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  let pos = 0;
  const skipSpace = (): void => {
    SPACE.lastIndex = pos;
    SPACE.exec(expression);
    pos = SPACE.lastIndex;
  };
  skipSpace();
  if (pos === expression.length) return terms;
  for (;;) {
    FIELD.lastIndex = pos;
    const field = FIELD.exec(expression);
    if (!field) throw new SearchSyntaxError('expected a field name', pos);
    pos = FIELD.lastIndex;
    skipSpace();
    if (expression[pos] !== '=') throw new SearchSyntaxError(`expected "=" after ${field[0]}`, pos);
    pos++;
    skipSpace();
    if (expression[pos] !== "'") throw new SearchSyntaxError("expected a value in single quotes", pos);
    pos++;
    let value = '';
    for (;;) {
      const quote = expression.indexOf("'", pos);
      if (quote < 0) throw new SearchSyntaxError('unterminated string', pos);
      value += expression.slice(pos, quote);
      if (expression[quote + 1] === "'") {
        value += "'";
        pos = quote + 2;
        continue;
      }
      pos = quote + 1;
      break;
    }
    terms.push({ field: field[0], value });
    skipSpace();
    if (pos === expression.length) return terms;
    const keyword = expression.slice(pos, pos + 3);
    if (keyword.toLowerCase() !== 'and' || !/^\s?$/.test(expression[pos + 3] ?? '')) {
      throw new SearchSyntaxError('expected "and" or the end of the expression', pos);
    }
    pos += 3;
    skipSpace();
  }
}

/** Reads a dotted field (`azure.resource_name`) from a JSON object; only string leaves match. */
export function fieldValue(object: unknown, field: string): string | undefined {
  let current: unknown = object;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return typeof current === 'string' ? current : undefined;
}
