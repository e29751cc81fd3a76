import { badRequest } from './errors';

/**
 * The clauses the SQL engine (`@zeit/cosmosdb-query`) cannot parse, lifted out of the query text:
 * `DISTINCT`, `GROUP BY …`, `OFFSET … LIMIT …` (top level only) and `[NOT] LIKE pattern [ESCAPE c]`
 * (anywhere, rewritten to a marker call that `sql-functions.ts` turns into a real one). Works on
 * tokens, so strings, comments and brackets never confuse it. What remains (`core`) is plain engine SQL.
 */
export interface LiftedQuery {
  core: string;
  /** `core` without its TOP (DISTINCT and GROUP BY cut after de-duplicating / grouping). */
  coreWithoutTop: string;
  /** The query without OFFSET/LIMIT and TOP, DISTINCT and GROUP BY kept: what one range runs for a plan. */
  withoutLimits: string;
  distinct: boolean;
  /** Each GROUP BY expression's text. */
  groupBy: string[];
  /** `OFFSET`/`LIMIT` operands' text (a number or a parameter). */
  offset?: string;
  limit?: string;
  hasTop: boolean;
  hasOrderBy: boolean;
}

export const LIKE_MARKER = '__ext_like_marker';

interface Token {
  text: string;
  start: number;
  end: number;
  depth: number;
  word?: string;
}

const PATTERNS: RegExp[] = [
  /\s+/y,
  /--[^\n]*/y,
  /\/\*[\s\S]*?\*\//y,
  /'(?:[^'\\]|\\[\s\S])*'/y,
  /"(?:[^"\\]|\\[\s\S])*"/y,
  /@[A-Za-z_$][\w$]*/y,
  /[A-Za-z_$][\w$]*/y,
  /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+/y,
  /!=|<>|<=|>=|\?\?|\|\||./y,
];

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let at = 0;
  let depth = 0;
  while (at < sql.length) {
    let text = '';
    for (const p of PATTERNS) {
      p.lastIndex = at;
      const m = p.exec(sql);
      if (m) {
        text = m[0];
        break;
      }
    }
    if (text === '') text = sql[at];
    const start = at;
    at += text.length;
    if (/^\s|^--|^\/\*/.test(text)) continue;
    if (text === ')' || text === ']' || text === '}') depth--;
    out.push({ text, start, end: at, depth, word: /^[A-Za-z_]/.test(text) ? text.toUpperCase() : undefined });
    if (text === '(' || text === '[' || text === '{') depth++;
  }
  return out;
}

const isOperand = (t: Token | undefined): boolean => t !== undefined && (/^['"]/.test(t.text) || t.text.startsWith('@'));
const isCount = (t: Token | undefined): boolean => t !== undefined && (/^\d+$/.test(t.text) || t.text.startsWith('@'));

/** Lifts the clauses out of `sql`; throws 400 for a shape the emulator does not take (README lists them). */
export function liftClauses(sql: string): LiftedQuery {
  const tokens = tokenize(sql);
  type Cut = { start: number; end: number; with: string; kind: 'distinct' | 'groupBy' | 'offset' | 'like' | 'top' };
  const cut: Cut[] = [];
  const top0 = (i: number): boolean => tokens[i]?.depth === 0;
  const selectAt = tokens.findIndex((t, i) => top0(i) && t.word === 'SELECT');
  let distinct = false;
  let hasTop = false;
  if (selectAt >= 0) {
    let i = selectAt + 1;
    for (let k = 0; k < 2; k++) {
      if (tokens[i]?.word === 'DISTINCT') {
        distinct = true;
        cut.push({ start: tokens[i].start, end: tokens[i].end, with: '', kind: 'distinct' });
        i++;
      } else if (tokens[i]?.word === 'TOP' && tokens[i + 1]) {
        cut.push({ start: tokens[i].start, end: tokens[i + 1].end, with: '', kind: 'top' });
        hasTop = true;
        i += 2;
      }
    }
  }
  const groupBy: string[] = [];
  let offset: string | undefined;
  let limit: string | undefined;
  let hasOrderBy = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (tokens[i - 1]?.text === '.') continue; // a property such as c.offset or c.like
    if (t.word === 'LIKE' || (t.word === 'NOT' && tokens[i + 1]?.word === 'LIKE')) {
      const negated = t.word === 'NOT';
      const likeAt = negated ? i + 1 : i;
      const pattern = tokens[likeAt + 1];
      if (!isOperand(pattern)) throw badRequest('The emulator takes LIKE with a string literal or a parameter as its pattern.');
      let end = pattern.end;
      let escape = "''";
      if (tokens[likeAt + 2]?.word === 'ESCAPE') {
        const e = tokens[likeAt + 3];
        if (!isOperand(e)) throw badRequest('LIKE … ESCAPE needs a one-character string literal.');
        escape = e.text;
        end = e.end;
      }
      cut.push({ start: t.start, end, with: `${negated ? '!=' : '='} ${LIKE_MARKER}(${pattern.text}, ${escape})`, kind: 'like' });
      i = likeAt + 1;
      continue;
    }
    if (!top0(i) || t.word === undefined) continue;
    if (t.word === 'ORDER' && tokens[i + 1]?.word === 'BY') hasOrderBy = true;
    if (t.word === 'GROUP' && tokens[i + 1]?.word === 'BY') {
      let j = i + 2;
      let from = tokens[j]?.start ?? sql.length;
      for (; j < tokens.length; j++) {
        const u = tokens[j];
        const stop = u.depth === 0 && ((u.word === 'ORDER' && tokens[j + 1]?.word === 'BY') || u.word === 'OFFSET');
        if (stop) break;
        if (u.depth === 0 && u.text === ',') {
          groupBy.push(sql.slice(from, u.start).trim());
          from = tokens[j + 1]?.start ?? sql.length;
        }
      }
      const end = j < tokens.length ? tokens[j].start : sql.length;
      groupBy.push(sql.slice(from, end).trim());
      if (groupBy.some((g) => g === '')) throw badRequest('GROUP BY needs one or more expressions.');
      cut.push({ start: t.start, end, with: ' ', kind: 'groupBy' });
      i = j - 1;
      continue;
    }
    if (t.word === 'OFFSET') {
      const [o, l, lv] = [tokens[i + 1], tokens[i + 2], tokens[i + 3]];
      if (!isCount(o) || l?.word !== 'LIMIT' || !isCount(lv) || i + 4 !== tokens.length) {
        throw badRequest('OFFSET must be followed by a number, LIMIT and a number, at the end of the query (OFFSET <n> LIMIT <m>).');
      }
      offset = o.text;
      limit = lv.text;
      cut.push({ start: t.start, end: lv.end, with: '', kind: 'offset' });
      break;
    }
    if (t.word === 'LIMIT') throw badRequest('LIMIT needs OFFSET before it (OFFSET <n> LIMIT <m>).');
  }
  const apply = (kinds: Array<Cut['kind']>): string => {
    let out = sql;
    for (const c of cut.filter((x) => kinds.includes(x.kind)).sort((a, b) => b.start - a.start))
      out = out.slice(0, c.start) + c.with + out.slice(c.end);
    return out.trim();
  };
  return {
    core: apply(['distinct', 'groupBy', 'offset', 'like']),
    coreWithoutTop: apply(['distinct', 'groupBy', 'offset', 'like', 'top']),
    withoutLimits: apply(['offset', 'like', 'top']),
    distinct,
    groupBy,
    offset,
    limit,
    hasTop,
    hasOrderBy,
  };
}
