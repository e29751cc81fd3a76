/**
 * SQL LIKE: `%` any run of characters, `_` one, `[a-c]` / `[^a]` one of (not of) a class, the escape
 * character makes the next one literal; case-sensitive, by code point. Matched with the greedy
 * wildcard walk (back to the last `%` on a mismatch), O(text × pattern): no regular expression, so no
 * pattern can make a query backtrack for ever.
 */
type Step = { any: true } | { any: false; test: (ch: string) => boolean };

function compile(pattern: string, escape: string | undefined): Step[] {
  const chars = [...pattern];
  const steps: Step[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === escape && i + 1 < chars.length) {
      const literal = chars[++i];
      steps.push({ any: false, test: (c) => c === literal });
    } else if (ch === '%') {
      if (!(steps.length > 0 && steps[steps.length - 1].any)) steps.push({ any: true });
    } else if (ch === '_') steps.push({ any: false, test: () => true });
    else if (ch === '[' && chars.indexOf(']', i + 1) > i + 1) {
      const close = chars.indexOf(']', i + 1);
      steps.push({ any: false, test: characterClass(chars.slice(i + 1, close)) });
      i = close;
    } else steps.push({ any: false, test: (c) => c === ch });
  }
  return steps;
}

function characterClass(body: string[]): (ch: string) => boolean {
  const negate = body[0] === '^' && body.length > 1;
  const items = negate ? body.slice(1) : body;
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < items.length; i++) {
    const lo = items[i].codePointAt(0) ?? 0;
    if (items[i + 1] === '-' && i + 2 < items.length) {
      ranges.push([lo, items[i + 2].codePointAt(0) ?? 0]);
      i += 2;
    } else ranges.push([lo, lo]);
  }
  return (ch) => {
    const cp = ch.codePointAt(0) ?? 0;
    return ranges.some(([a, b]) => cp >= a && cp <= b) !== negate;
  };
}

const cache = new Map<string, Step[]>();

export function like(value: string, pattern: string, escape?: unknown): boolean {
  const esc = typeof escape === 'string' && [...escape].length === 1 ? escape : undefined;
  const key = `${esc ?? ''}\u0000${pattern}`;
  let steps = cache.get(key);
  if (!steps) {
    steps = compile(pattern, esc);
    if (cache.size >= 256) cache.clear();
    cache.set(key, steps);
  }
  const text = [...value];
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < text.length) {
    const step = steps[j];
    if (step && !step.any && step.test(text[i])) {
      i++;
      j++;
    } else if (step && step.any) {
      star = j++;
      mark = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (j < steps.length && steps[j].any) j++;
  return j === steps.length;
}
