/**
 * What is wrong with a JSON text that does not parse, said without any of its content: a configuration
 * file holds secrets (cosmos.key, ops.token), and V8's message quotes the text around the error
 * (`Unexpected token 'S', ..."key": SuperSecre"... is not valid JSON`).
 */
export function jsonSyntaxProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  // V8's structural messages ("Expected ',' or '}' after property value in JSON at position 39 …") quote
  // JSON's own punctuation only; any other message is replaced as a whole.
  const structural = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
  const offset = structural ? Number(structural[2]) : firstBadOffset(text);
  const what = structural && !/"/.test(structural[1]) ? structural[1] : 'unexpected character or end';
  const before = text.slice(0, offset).split('\n');
  return `not valid JSON at line ${before.length}, column ${before[before.length - 1].length + 1}: ${what}`;
}

/** The length of the longest prefix of `text` that some valid JSON text begins with: where it first goes wrong. */
function firstBadOffset(text: string): number {
  const viable = (n: number): boolean => {
    try {
      JSON.parse(text.slice(0, n));
      return true;
    } catch (err) {
      const m = err instanceof Error ? err.message : '';
      const at = /at position (\d+)/.exec(m);
      return /Unexpected end|Unterminated/.test(m) || (at !== null && Number(at[1]) >= n);
    }
  };
  let [lo, hi] = [0, text.length];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (viable(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
