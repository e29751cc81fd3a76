import { badRequest } from './errors';
import { AstNode, isNode } from './query-plan';
import { LIKE_MARKER } from './sql-text';
import * as dt from './date-time';
import { like } from './like';

/**
 * Functions the engine lacks (IIF, LIKE, the date and time functions), given to it as its UDFs under
 * private names: `rewriteFunctions` points the calls in a parsed query at them, `extensionFunctions`
 * supplies them for one execution (GetCurrentDateTime is one value per query, as on the service).
 */
const PREFIX = '__ext_';
const NAMES = [
  'IIF',
  'GETCURRENTDATETIME',
  'GETCURRENTTIMESTAMP',
  'DATETIMEADD',
  'DATETIMEPART',
  'DATETIMEDIFF',
  'DATETIMEFROMPARTS',
  'DATETIMETOTIMESTAMP',
  'TIMESTAMPTODATETIME',
  'GETCURRENTTICKS',
  'DATETIMETOTICKS',
  'TICKSTODATETIME',
  'DATETIMEBIN',
];

type Fn = (...args: unknown[]) => unknown;

export function extensionFunctions(nowMs: number): Record<string, Fn> {
  const fns: Record<string, Fn> = {
    IIF: (c, a, b) => (c === true ? a : b),
    GETCURRENTDATETIME: () => dt.currentDateTime(nowMs),
    GETCURRENTTIMESTAMP: () => nowMs,
    DATETIMEADD: dt.dateTimeAdd,
    DATETIMEPART: dt.dateTimePart,
    DATETIMEDIFF: dt.dateTimeDiff,
    DATETIMEFROMPARTS: dt.dateTimeFromParts,
    DATETIMETOTIMESTAMP: dt.dateTimeToTimestamp,
    TIMESTAMPTODATETIME: dt.timestampToDateTime,
    GETCURRENTTICKS: () => dt.currentTicks(nowMs),
    DATETIMETOTICKS: dt.dateTimeToTicks,
    TICKSTODATETIME: dt.ticksToDateTime,
    DATETIMEBIN: dt.dateTimeBin,
    LIKE: (value, pattern, escape) => (typeof value === 'string' && typeof pattern === 'string' ? like(value, pattern, escape) : undefined),
  };
  return Object.fromEntries(Object.entries(fns).map(([k, f]) => [PREFIX + k, f]));
}

const fnName = (n: AstNode): string => (isNode(n.name) ? String(n.name.name) : '');

/** Points IIF, LIKE and date function calls in `ast` at the extension functions; refuses user UDFs. */
export function rewriteFunctions(ast: unknown): void {
  if (Array.isArray(ast)) {
    ast.forEach(rewriteFunctions);
    return;
  }
  if (!isNode(ast)) {
    if (typeof ast === 'object' && ast !== null) Object.values(ast).forEach(rewriteFunctions);
    return;
  }
  if (
    ast.type === 'scalar_binary_expression' &&
    isNode(ast.right) &&
    ast.right.type === 'scalar_function_expression' &&
    fnName(ast.right) === LIKE_MARKER
  ) {
    const negated = ast.operator !== '=';
    const args = Array.isArray(ast.right.arguments) ? ast.right.arguments : [];
    const call: AstNode = {
      type: 'scalar_function_expression',
      name: { type: 'identifier', name: `${PREFIX}LIKE` },
      arguments: [ast.left, ...args],
      udf: true,
    };
    for (const k of Object.keys(ast)) delete ast[k];
    Object.assign(ast, negated ? { type: 'scalar_unary_expression', operator: 'NOT', argument: call } : call);
    rewriteFunctions(call.arguments);
    return;
  }
  if (ast.type === 'scalar_function_expression') {
    const upper = fnName(ast).toUpperCase();
    if (ast.udf === true && !fnName(ast).startsWith(PREFIX))
      throw badRequest(`User-defined functions are not supported by the emulator (udf.${fnName(ast)}).`);
    if (upper === LIKE_MARKER.toUpperCase()) throw badRequest('LIKE must follow the expression it tests (x LIKE pattern).');
    if (!ast.udf && NAMES.includes(upper)) {
      ast.udf = true;
      ast.name = { type: 'identifier', name: PREFIX + upper };
    }
  }
  Object.values(ast).forEach(rewriteFunctions);
}
