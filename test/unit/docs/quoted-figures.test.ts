import { existsSync, readdirSync, readFileSync } from 'fs';
import { join, normalize } from 'path';
import { DOC_PAGES, REPO_ROOT } from '../../helpers/doc-pages';

/**
 * Every figure the README and docs/ quote from a benchmark is the figure its page records: in a
 * paragraph that links a page under bench/results/ (or the index, bench/RESULTS.md, which stands for
 * every page), each number with a measuring unit (ms, s, %, ×, MiB, core, RU, requests, ops/s …) must
 * appear in the linked page(s) as written, or, for seconds, as the milliseconds that round to it
 * (a page's "7979 ms" is a doc's "8.0 s"). A number the doc states as a bound or a setting rather than
 * a measurement (a target, a budget, a limit, a default) is said so in words next to it and skipped.
 */
const ROOT = REPO_ROOT;
const PAGES = DOC_PAGES;
const RESULTS_DIR = join(ROOT, 'bench', 'results');

const LINK = /\((?:\.\.\/)?(bench\/(?:results\/[\w-]+\.md|RESULTS\.md))(?:#[\w-]*)?\)|`(bench\/results\/[\w-]+\.md)`/g;
const FIGURE = /(?<![\w.#/@-])(\d[\d,]*(?:\.\d+)?)\s?(ms|s|%|×|MiB|KiB|GiB|cores?|RU|requests?|req\/s|ops\/s|operations\/s)(?![\w/])/g;
/** Words just before a number that make it a bound or a setting, not a measurement. */
const BOUND_BEFORE =
  /(\b(target|budget|limit|limited|cap|capped|ceiling|at most|up to|default|every|interval|timeout|grace|threshold|request|per)\b|`[\w.]+`)\W*$/i;
/** …and just after it ("the 0.1 % budget"). */
const BOUND_AFTER = /^\W*(budget|limit|target|cap)\b/i;

interface Quote {
  readonly page: string;
  readonly figure: string;
  readonly context: string;
  readonly cited: readonly string[];
}

function paragraphs(text: string): string[] {
  return text.split(/\n\s*\n/);
}

function citedPages(paragraph: string): string[] {
  return [...new Set([...paragraph.matchAll(LINK)].map((m) => normalize((m[1] ?? m[2]) as string)))];
}

function pageText(cited: string): string {
  if (cited === normalize('bench/RESULTS.md'))
    return [
      readFileSync(join(ROOT, cited), 'utf8'),
      ...readdirSync(RESULTS_DIR)
        .filter((f) => f.endsWith('.md'))
        .map((f) => readFileSync(join(RESULTS_DIR, f), 'utf8')),
    ].join('\n');
  const path = join(ROOT, cited);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

/** The numbers a page records, without thousands separators. */
function numbersOf(text: string): Set<string> {
  return new Set([...text.replace(/(\d),(?=\d{3}\b)/g, '$1').matchAll(/\d+(?:\.\d+)?/g)].map((m) => m[0]));
}

function recorded(figure: string, unit: string, numbers: ReadonlySet<string>): boolean {
  const value = figure.replace(/,/g, '');
  if (numbers.has(value)) return true;
  if (unit !== 's') return false;
  // Seconds written from milliseconds: the doc's rounding of any recorded ms value.
  const decimals = value.split('.')[1]?.length ?? 0;
  const seconds = Number(value);
  for (const n of numbers) {
    if (n.includes('.')) continue;
    if (Number((Number(n) / 1000).toFixed(decimals)) === seconds) return true;
  }
  return false;
}

function quotes(): Quote[] {
  const out: Quote[] = [];
  for (const page of PAGES) {
    for (const paragraph of paragraphs(readFileSync(join(ROOT, page), 'utf8'))) {
      const cited = citedPages(paragraph);
      if (cited.length === 0) continue;
      for (const m of paragraph.replace(LINK, '').matchAll(FIGURE)) {
        const text = paragraph.replace(LINK, '');
        const at = m.index ?? 0;
        const before = text.slice(Math.max(0, at - 40), at);
        if (BOUND_BEFORE.test(before.slice(-24)) || BOUND_AFTER.test(text.slice(at + m[0].length, at + m[0].length + 16))) continue;
        out.push({ page, figure: `${m[1]} ${m[2]}`, context: `…${before}${m[0]}`.replace(/\s+/g, ' '), cited });
      }
    }
  }
  return out;
}

describe('figures quoted from the benchmarks', () => {
  const all = quotes();

  it('finds the quotes (the parser works): the README and docs cite benchmark pages with figures', () => {
    expect(all.length).toBeGreaterThan(30);
    expect(all.map((q) => q.page)).toEqual(expect.arrayContaining(['docs/benchmarks.md', 'docs/deploying.md']));
  });

  it('every quoted figure is the one its cited page records', () => {
    const numbers = new Map<string, Set<string>>();
    const numbersFor = (cited: string): Set<string> => {
      let n = numbers.get(cited);
      if (!n) numbers.set(cited, (n = numbersOf(pageText(cited))));
      return n;
    };
    const wrong = all
      .filter((q) => {
        const [value, unit] = q.figure.split(' ') as [string, string];
        return !q.cited.some((c) => recorded(value, unit, numbersFor(c)));
      })
      .map((q) => `${q.page}: ${q.figure} is not in ${q.cited.join(', ')} (${q.context})`);
    expect(wrong).toEqual([]);
  });
});
