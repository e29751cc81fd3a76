/**
 * A subset of the Service Bus SQL filter grammar: comparisons (= <> != < <= > >=), AND / OR / NOT,
 * IN / NOT IN, LIKE / NOT LIKE (with ESCAPE), IS [NOT] NULL, EXISTS(prop), + - * / % on numbers,
 * parentheses, string/number/boolean/NULL literals, `sys.X`, `user.X`, bare and [bracketed] names.
 * Three-valued logic as in SQL: a missing property is NULL and makes a comparison unknown (no match).
 */
export type SqlValue = string | number | boolean | null;
export interface SqlMessageView {
  system(name: string): SqlValue | undefined;
  user(name: string): SqlValue | undefined;
}

type Node =
  | { k: 'lit'; v: SqlValue }
  | { k: 'prop'; scope: 'sys' | 'user'; name: string }
  | { k: 'not'; e: Node }
  | { k: 'and' | 'or'; a: Node; b: Node }
  | { k: 'cmp'; op: string; a: Node; b: Node }
  | { k: 'arith'; op: string; a: Node; b: Node }
  | { k: 'neg'; e: Node }
  | { k: 'in'; e: Node; list: Node[]; not: boolean }
  | { k: 'like'; e: Node; pattern: RegExp; not: boolean }
  | { k: 'isnull'; e: Node; not: boolean }
  | { k: 'exists'; p: Node };

export class SqlFilterError extends Error {}

type Statement = { set: string; e: Node } | { setSys: string; e: Node } | { remove: string };

/**
 * The system properties a rule action may set (`SET sys.To = 'x'`, as the official emulator's sample
 * Config.json does), by their lower-cased SQL name, as AMQP properties fields.
 */
const SETTABLE_SYSTEM: Record<string, string> = {
  messageid: 'message_id',
  correlationid: 'correlation_id',
  to: 'to',
  replyto: 'reply_to',
  label: 'subject',
  subject: 'subject',
  sessionid: 'group_id',
  replytosessionid: 'reply_to_group_id',
  contenttype: 'content_type',
};

/** What a rule action does to a message's application properties and system properties. */
export interface SqlActionResult {
  set: Record<string, SqlValue>;
  remove: string[];
  /** AMQP properties fields (`to`, `subject`, …) to set; null clears one */
  system: Record<string, SqlValue>;
}
export type SqlAction = (m: SqlMessageView) => SqlActionResult;

interface Tok {
  t: 'num' | 'str' | 'id' | 'op' | 'eof';
  v: string;
}

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new SqlFilterError('unterminated string literal');
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            s += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        s += src[i++];
      }
      out.push({ t: 'str', v: s });
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|^[0-9]+\.?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: m[0] });
      i += m[0].length;
    } else if (c === '[') {
      const end = src.indexOf(']', i);
      if (end < 0) throw new SqlFilterError('unterminated [name]');
      out.push({ t: 'id', v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (/[A-Za-z_@$]/.test(c)) {
      const m = /^[A-Za-z_@$][A-Za-z0-9_@$]*(?:\.[A-Za-z_@$][A-Za-z0-9_@$-]*|\.\[[^\]]*\])?/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else {
      const two = src.slice(i, i + 2);
      if (['<>', '!=', '<=', '>='].includes(two)) {
        out.push({ t: 'op', v: two });
        i += 2;
      } else if ('=<>(),+-*/%;'.includes(c)) {
        out.push({ t: 'op', v: c });
        i++;
      } else throw new SqlFilterError(`unexpected character ${JSON.stringify(c)} at ${i}`);
    }
  }
  out.push({ t: 'eof', v: '' });
  return out;
}

function likeToRegExp(pattern: string, escape: string | undefined): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (escape && c === escape && i + 1 < pattern.length) {
      re += pattern[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok {
    return this.toks[this.i];
  }
  private kw(word: string): boolean {
    const t = this.peek();
    if (t.t === 'id' && t.v.toUpperCase() === word) {
      this.i++;
      return true;
    }
    return false;
  }
  private isKw(word: string, offset = 0): boolean {
    const t = this.toks[this.i + offset];
    return t !== undefined && t.t === 'id' && t.v.toUpperCase() === word;
  }
  private op(v: string): boolean {
    const t = this.peek();
    if (t.t === 'op' && t.v === v) {
      this.i++;
      return true;
    }
    return false;
  }
  private expect(v: string): void {
    if (!this.op(v)) throw new SqlFilterError(`expected ${v} near ${JSON.stringify(this.peek().v)}`);
  }
  parse(): Node {
    const e = this.or();
    if (this.peek().t !== 'eof') throw new SqlFilterError(`unexpected ${JSON.stringify(this.peek().v)}`);
    return e;
  }
  /** `SET name = expr [, name = expr]` and `REMOVE name [, name]` statements, optionally separated by `;`. */
  parseAction(): Statement[] {
    const out: Statement[] = [];
    while (this.peek().t !== 'eof') {
      if (this.op(';')) continue;
      const set = this.kw('SET');
      if (!set && !this.kw('REMOVE')) throw new SqlFilterError(`expected SET or REMOVE near ${JSON.stringify(this.peek().v)}`);
      do {
        const target = this.primary();
        if (target.k !== 'prop') throw new SqlFilterError('SET and REMOVE take a property name');
        if (target.scope === 'sys') {
          const field = SETTABLE_SYSTEM[target.name.toLowerCase()];
          if (!set || !field) throw new SqlFilterError(`sys.${target.name} cannot be ${set ? 'set' : 'removed'} by a rule action`);
          this.expect('=');
          out.push({ setSys: field, e: this.or() });
        } else if (set) {
          this.expect('=');
          out.push({ set: target.name, e: this.or() });
        } else out.push({ remove: target.name });
      } while (this.op(','));
    }
    if (!out.length) throw new SqlFilterError('the action is empty');
    return out;
  }
  private or(): Node {
    let a = this.and();
    while (this.kw('OR')) a = { k: 'or', a, b: this.and() };
    return a;
  }
  private and(): Node {
    let a = this.not();
    while (this.kw('AND')) a = { k: 'and', a, b: this.not() };
    return a;
  }
  private not(): Node {
    if (this.kw('NOT')) return { k: 'not', e: this.not() };
    return this.predicate();
  }
  private predicate(): Node {
    if (this.isKw('EXISTS')) {
      this.i++;
      this.expect('(');
      const p = this.primary();
      if (p.k !== 'prop') throw new SqlFilterError('EXISTS takes a property name');
      this.expect(')');
      return { k: 'exists', p };
    }
    const a = this.additive();
    const t = this.peek();
    if (t.t === 'op' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(t.v)) {
      this.i++;
      return { k: 'cmp', op: t.v === '!=' ? '<>' : t.v, a, b: this.additive() };
    }
    let not = false;
    if (this.isKw('NOT') && (this.isKw('IN', 1) || this.isKw('LIKE', 1))) {
      this.i++;
      not = true;
    }
    if (this.kw('IN')) {
      this.expect('(');
      const list: Node[] = [this.additive()];
      while (this.op(',')) list.push(this.additive());
      this.expect(')');
      return { k: 'in', e: a, list, not };
    }
    if (this.kw('LIKE')) {
      const p = this.peek();
      if (p.t !== 'str') throw new SqlFilterError('LIKE takes a string pattern');
      this.i++;
      let escape: string | undefined;
      if (this.kw('ESCAPE')) {
        const e = this.peek();
        if (e.t !== 'str' || e.v.length !== 1) throw new SqlFilterError('ESCAPE takes one character');
        this.i++;
        escape = e.v;
      }
      return { k: 'like', e: a, pattern: likeToRegExp(p.v, escape), not };
    }
    if (this.kw('IS')) {
      const isNot = this.kw('NOT');
      if (!this.kw('NULL')) throw new SqlFilterError('expected NULL after IS');
      return { k: 'isnull', e: a, not: isNot };
    }
    return a;
  }
  private additive(): Node {
    let a = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && (t.v === '+' || t.v === '-')) {
        this.i++;
        a = { k: 'arith', op: t.v, a, b: this.multiplicative() };
      } else return a;
    }
  }
  private multiplicative(): Node {
    let a = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && (t.v === '*' || t.v === '/' || t.v === '%')) {
        this.i++;
        a = { k: 'arith', op: t.v, a, b: this.unary() };
      } else return a;
    }
  }
  private unary(): Node {
    if (this.op('-')) return { k: 'neg', e: this.unary() };
    if (this.op('+')) return this.unary();
    return this.primary();
  }
  private primary(): Node {
    const t = this.peek();
    if (this.op('(')) {
      const e = this.or();
      this.expect(')');
      return e;
    }
    this.i++;
    if (t.t === 'num') return { k: 'lit', v: Number(t.v) };
    if (t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'id') {
      const up = t.v.toUpperCase();
      if (up === 'TRUE') return { k: 'lit', v: true };
      if (up === 'FALSE') return { k: 'lit', v: false };
      if (up === 'NULL') return { k: 'lit', v: null };
      const dot = t.v.indexOf('.');
      if (dot > 0) {
        const scope = t.v.slice(0, dot).toLowerCase();
        let name = t.v.slice(dot + 1);
        if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
        if (scope === 'sys') return { k: 'prop', scope: 'sys', name };
        if (scope === 'user') return { k: 'prop', scope: 'user', name };
      }
      return { k: 'prop', scope: 'user', name: t.v };
    }
    throw new SqlFilterError(`unexpected ${t.t === 'eof' ? 'end of expression' : JSON.stringify(t.v)}`);
  }
}

export type SqlPredicate = (m: SqlMessageView) => boolean;

export function compileSqlFilter(expression: string): SqlPredicate {
  const ast = new Parser(tokenize(expression)).parse();
  return (m) => truth(evaluate(ast, m)) === true;
}

/** A rule action (`SET user properties = expressions`, `REMOVE user properties`), evaluated against the message as matched. */
export function compileSqlAction(expression: string): SqlAction {
  const statements = new Parser(tokenize(expression)).parseAction();
  return (m) => {
    const out: SqlActionResult = { set: {}, remove: [], system: {} };
    for (const st of statements) {
      if ('set' in st) out.set[st.set] = evaluate(st.e, m);
      else if ('setSys' in st) out.system[st.setSys] = evaluate(st.e, m);
      else out.remove.push(st.remove);
    }
    return out;
  };
}

function truth(v: SqlValue): boolean | null {
  if (v === null) return null;
  if (typeof v === 'boolean') return v;
  return null;
}

function compare(op: string, a: SqlValue, b: SqlValue): boolean | null {
  if (a === null || b === null) return null;
  if (typeof a !== typeof b) return null;
  if (op === '=') return a === b;
  if (op === '<>') return a !== b;
  if (typeof a === 'boolean') return null;
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a >= b;
}

function evaluate(n: Node, m: SqlMessageView): SqlValue {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'prop': {
      const v = n.scope === 'sys' ? m.system(n.name) : m.user(n.name);
      return v === undefined ? null : v;
    }
    case 'not': {
      const v = truth(evaluate(n.e, m));
      return v === null ? null : !v;
    }
    case 'and': {
      const a = truth(evaluate(n.a, m));
      if (a === false) return false;
      const b = truth(evaluate(n.b, m));
      if (b === false) return false;
      return a === null || b === null ? null : true;
    }
    case 'or': {
      const a = truth(evaluate(n.a, m));
      if (a === true) return true;
      const b = truth(evaluate(n.b, m));
      if (b === true) return true;
      return a === null || b === null ? null : false;
    }
    case 'cmp':
      return compare(n.op, evaluate(n.a, m), evaluate(n.b, m));
    case 'arith': {
      const a = evaluate(n.a, m);
      const b = evaluate(n.b, m);
      if (n.op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
      if (typeof a !== 'number' || typeof b !== 'number') return null;
      if (n.op === '+') return a + b;
      if (n.op === '-') return a - b;
      if (n.op === '*') return a * b;
      if (b === 0) return null;
      return n.op === '/' ? a / b : a % b;
    }
    case 'neg': {
      const v = evaluate(n.e, m);
      return typeof v === 'number' ? -v : null;
    }
    case 'in': {
      const v = evaluate(n.e, m);
      if (v === null) return null;
      const hit = n.list.some((x) => compare('=', v, evaluate(x, m)) === true);
      return n.not ? !hit : hit;
    }
    case 'like': {
      const v = evaluate(n.e, m);
      if (typeof v !== 'string') return null;
      const hit = n.pattern.test(v);
      return n.not ? !hit : hit;
    }
    case 'isnull': {
      const v = evaluate(n.e, m);
      return n.not ? v !== null : v === null;
    }
    case 'exists': {
      const p = n.p as { scope: 'sys' | 'user'; name: string };
      return (p.scope === 'sys' ? m.system(p.name) : m.user(p.name)) !== undefined;
    }
  }
}
