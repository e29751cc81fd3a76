/**
 * The subset of the OCM search language the simulator understands: terms joined by `and` (any
 * casing), each either `field = 'value'` or `field in ('v1', 'v2', …)` (`in` in any casing, at
 * least one value). Values are single-quoted with `''` standing for one quote. Anything else is a
 * SearchSyntaxError, which the server answers with 400.
 */

/** `field = 'value'`. */
export interface EqualsTerm {
  readonly field: string;
  readonly value: string;
  readonly values?: undefined;
}

/** `field in ('v1', 'v2', …)`: holds when the field equals any of the values. */
export interface InTerm {
  readonly field: string;
  readonly values: readonly string[];
  readonly value?: undefined;
}

export type SearchTerm = EqualsTerm | InTerm;

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
  /** `in` (any casing) at `pos`, followed by a space, "(" or the end. */
  const atIn = (): boolean => expression.slice(pos, pos + 2).toLowerCase() === 'in' && !/[a-z0-9_.]/i.test(expression[pos + 2] ?? '');
  const readString = (): string => {
    if (expression[pos] !== "'") throw new SearchSyntaxError('expected a value in single quotes', pos);
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
      return value;
    }
  };
  const readList = (): string[] => {
    if (expression[pos] !== '(') throw new SearchSyntaxError('expected "(" after "in"', pos);
    pos++;
    skipSpace();
    if (expression[pos] === ')') throw new SearchSyntaxError('empty list: expected at least one value', pos);
    const values: string[] = [];
    for (;;) {
      values.push(readString());
      skipSpace();
      if (expression[pos] === ')') {
        pos++;
        return values;
      }
      if (pos === expression.length) throw new SearchSyntaxError('unterminated list: expected "," or ")"', pos);
      if (expression[pos] !== ',') throw new SearchSyntaxError('expected "," or ")" in the list', pos);
      pos++;
      skipSpace();
    }
  };

  skipSpace();
  if (pos === expression.length) return terms;
  for (;;) {
    FIELD.lastIndex = pos;
    const field = FIELD.exec(expression);
    if (!field) throw new SearchSyntaxError('expected a field name', pos);
    pos = FIELD.lastIndex;
    skipSpace();
    if (expression[pos] === '=') {
      pos++;
      skipSpace();
      terms.push({ field: field[0], value: readString() });
    } else if (atIn()) {
      pos += 2;
      skipSpace();
      terms.push({ field: field[0], values: readList() });
    } else {
      throw new SearchSyntaxError(`expected "=" or "in" after ${field[0]}`, pos);
    }
    skipSpace();
    if (pos === expression.length) return terms;
    if (expression.slice(pos, pos + 3).toLowerCase() !== 'and' || !/^\s?$/.test(expression[pos + 3] ?? '')) {
      throw new SearchSyntaxError('expected "and" or the end of the expression', pos);
    }
    pos += 3;
    skipSpace();
  }
}

/** The values a term accepts: one for `=`, any of the list for `in`. */
export function termValues(term: SearchTerm): readonly string[] {
  return term.values === undefined ? [term.value] : term.values;
}

/** Whether `object` satisfies the term (its field is a string equal to one of the term's values). */
export function termMatches(object: unknown, term: SearchTerm): boolean {
  const actual = fieldValue(object, term.field);
  return actual !== undefined && termValues(term).includes(actual);
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

/**
 * Parses an expression of alternatives: conjunctions joined by `or` (any casing), each optionally in
 * parentheses — `id in ('a') or (azure.subscription_id = 's' and azure.resource_name = 'n')`. OCM's
 * search language has `or`; opstream uses it to share one list call between status reads by id and
 * searches by ARM name. A cluster matches when every term of one alternative holds.
 */
export function parseSearchAlternatives(expression: string): SearchTerm[][] {
  const parts = splitTopLevelOr(expression);
  return parts.map(({ text, offset }) => {
    // An empty side of `or` would match everything: refuse it.
    if (parts.length > 1 && text.trim() === '') throw new SearchSyntaxError('expected a condition on each side of "or"', offset);
    const inner = unwrapParentheses(text);
    try {
      return parseSearch(inner.text);
    } catch (err) {
      if (err instanceof SearchSyntaxError) {
        const at = offset + inner.offset + err.position;
        throw new SearchSyntaxError(err.message.replace(/ at position \d+$/, ''), at);
      }
      throw err;
    }
  });
}

/** Splits at `or` outside quotes and parentheses; each part with its offset in the expression. */
function splitTopLevelOr(expression: string): Array<{ text: string; offset: number }> {
  const parts: Array<{ text: string; offset: number }> = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === "'") {
      // Skip the quoted value ('' is a quote inside it); an unterminated one is parseSearch's to report.
      for (i++; i < expression.length; i++) {
        if (expression[i] !== "'") continue;
        if (expression[i + 1] === "'") i++;
        else break;
      }
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (
      depth === 0 &&
      /\s|\)/.test(expression[i - 1] ?? '') &&
      expression.slice(i, i + 2).toLowerCase() === 'or' &&
      /\s|\(/.test(expression[i + 2] ?? '')
    ) {
      parts.push({ text: expression.slice(start, i), offset: start });
      start = i + 2;
      i++;
    }
  }
  parts.push({ text: expression.slice(start), offset: start });
  return parts;
}

/** `( … )` around a whole part → its inside (with the offset of the inside), else the part as is. */
function unwrapParentheses(text: string): { text: string; offset: number } {
  const open = text.search(/\S/);
  const close = text.trimEnd().length - 1;
  if (open < 0 || text[open] !== '(' || text[close] !== ')') return { text, offset: 0 };
  // Only when the first "(" closes at the end: `(a) and (b)` is not one group.
  let depth = 0;
  for (let i = open; i <= close; i++) {
    const c = text[i];
    if (c === "'") {
      for (i++; i < close; i++) {
        if (text[i] !== "'") continue;
        if (text[i + 1] === "'") i++;
        else break;
      }
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0 && i !== close) return { text, offset: 0 };
  }
  return { text: text.slice(open + 1, close), offset: open + 1 };
}
