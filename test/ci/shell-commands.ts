/**
 * The commands a bash script of ours calls, read statically: enough of bash's grammar for .ci/setup-*
 * (words, quotes, $( ), ${ }, pipes and lists, redirections, here-documents, functions, case labels),
 * not a general parser. Used to check that each script's header names what it needs.
 */

const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'in', 'case', 'esac', '!', 'time']);
// Keywords after which the next word is a command again.
const COMMAND_NEXT = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time']);
const BUILTINS = new Set(
  (
    'cd exit return set export local shift trap true false read command eval exec source . test [ [[ unset wait ' +
    'declare readonly type hash shopt getopts let pwd kill echo printf pushd popd umask ulimit break continue :'
  ).split(' '),
);

export interface ScriptCommands {
  /** Commands looked up on PATH, with the offset of their first call. */
  external: Map<string, number>;
  /** Scripts called by a path (`.ci/setup-node`). */
  scripts: Set<string>;
  /** Commands whose presence is checked (`command -v NAME`), with the offset of the first check. */
  checked: Map<string, number>;
}

/** Blanks what is not code: comments, here-document bodies, case labels; returns the function names too. */
function prepare(source: string): { code: string; functions: Set<string> } {
  const functions = new Set<string>();
  const lines = source.split('\n');
  const out: string[] = [];
  let heredocEnd: string | undefined;
  let inCase = false;
  for (const line of lines) {
    if (heredocEnd !== undefined) {
      out.push('');
      if (line.trim() === heredocEnd) heredocEnd = undefined;
      continue;
    }
    let l = line.replace(/(^|\s)#.*$/, '$1');
    const doc = /<<-?\s*['"]?(\w+)['"]?/.exec(l);
    if (doc) {
      heredocEnd = doc[1];
      l = l.replace(doc[0], '');
    }
    l = l.replace(/^(\s*)([A-Za-z_][\w-]*)\(\)/, (_m, sp: string, name: string) => {
      functions.add(name);
      return sp;
    });
    if (/\bcase\b/.test(l)) inCase = true;
    if (/\besac\b/.test(l)) inCase = false;
    if (inCase) l = l.replace(/^(\s*)[^\s()'"]+\)/, '$1');
    out.push(l);
  }
  return { code: out.join('\n'), functions };
}

export function scriptCommands(source: string): ScriptCommands {
  const { code, functions } = prepare(source);
  const result: ScriptCommands = { external: new Map(), scripts: new Set(), checked: new Map() };
  let i = 0;

  // Reads code until `end` (')' for $( ) or the end); records the command words.
  const parse = (end: string | undefined): void => {
    let atCommand = true;
    let previous = '';
    let skipWord = false;
    while (i < code.length) {
      const c = code[i];
      if (end !== undefined && c === end) {
        i++;
        return;
      }
      if (c === '\n' || c === ';' || c === '|' || c === '&' || c === '(' || c === '{' || c === '}') {
        atCommand = true;
        previous = '';
        i++;
        continue;
      }
      if (c === ')') {
        i++;
        continue;
      }
      if (c === '\\' && code[i + 1] === '\n') {
        i += 2; // a line continued
        continue;
      }
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      if (c === '>' || c === '<') {
        while ('<>&'.includes(code[i] ?? '')) i++;
        if (/[0-9-]/.test(code[i] ?? '')) while (/[0-9-]/.test(code[i] ?? '')) i++;
        else skipWord = true;
        continue;
      }
      const at = i;
      const word = readWord();
      if (/^\d+$/.test(word) && (code[i] === '>' || code[i] === '<')) continue; // 2>…
      if (skipWord) {
        skipWord = false;
        continue;
      }
      if (previous === 'command -v') {
        if (!result.checked.has(word)) result.checked.set(word, at);
        previous = '';
        continue;
      }
      if (!atCommand) {
        previous = previous === 'command' && word === '-v' ? 'command -v' : '';
        continue;
      }
      if (/^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(word) || word === '$SUDO') continue; // an assignment or the sudo prefix
      atCommand = COMMAND_NEXT.has(word);
      previous = word;
      if (KEYWORDS.has(word) || BUILTINS.has(word) || functions.has(word) || word.startsWith('$') || word === '') continue;
      if (word.includes('/')) result.scripts.add(word);
      else if (!result.external.has(word)) result.external.set(word, at);
    }
  };

  // One word with its quotes removed; a $( ) inside is parsed as code, its text left out.
  const readWord = (): string => {
    let word = '';
    while (i < code.length) {
      const c = code[i];
      if (' \t\n;|&<>()'.includes(c) && !(c === '(' && word.endsWith('$'))) break;
      if (c === "'") {
        const close = code.indexOf("'", i + 1);
        word += code.slice(i + 1, close);
        i = close + 1;
      } else if (c === '"') {
        i++;
        while (i < code.length && code[i] !== '"') {
          if (code[i] === '\\') i += 2;
          else if (code.startsWith('$(', i)) {
            i += 2;
            parse(')');
            word += '$()';
          } else word += code[i++];
        }
        i++;
      } else if (code.startsWith('$(', i)) {
        i += 2;
        parse(')');
        word += '$()';
      } else if (code.startsWith('${', i)) {
        const close = code.indexOf('}', i);
        word += code.slice(i, close + 1);
        i = close + 1;
      } else word += code[i++];
    }
    return word;
  };

  parse(undefined);
  return result;
}

/** The commands a header line names (`# Needs: a, b (when …), c`), those with a condition apart. */
export function headerList(source: string, label: string): { all: string[]; unconditional: string[] } {
  const header = source.split('\n').filter((l) => l.startsWith('#'));
  const start = header.findIndex((l) => l.startsWith(`# ${label}:`));
  if (start < 0) return { all: [], unconditional: [] };
  let text = header[start].slice(`# ${label}:`.length);
  for (const l of header.slice(start + 1)) {
    if (!/^#\s{3}/.test(l)) break;
    text += ',' + l.slice(1);
  }
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    all: items.map((s) => s.split(' ')[0]),
    unconditional: items.filter((s) => !s.includes('(')).map((s) => s.split(' ')[0]),
  };
}
