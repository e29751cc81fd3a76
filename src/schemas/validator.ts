/**
 * Validation of every document and message that crosses a boundary. The schemas are compiled once,
 * all together, by `compileSchemas()` or else on first use; `validate` returns the value typed by
 * its kind or throws a ValidationError that names the document and the failing field. Values are
 * never modified (no defaults, no coercion).
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isArmResourceId } from '../domain/ids';
import { tooDeepAt } from '../util/json-walk';
import { SCHEMAS, SCHEMA_KINDS, SHARED_SCHEMAS, type SchemaKind } from './catalog';
import { ValidationError, type ValidationIssue } from './errors';
import type { SchemaCatalog } from '../domain/types.generated';

export type { SchemaKind };
export type Validated<K extends SchemaKind> = SchemaCatalog[K];

export type CheckResult<K extends SchemaKind> = { ok: true; value: Validated<K> } | { ok: false; error: ValidationError };

type Compiled = { readonly [K in SchemaKind]: ValidateFunction<Validated<K>> };

let compiled: Compiled | undefined;

function compileAll(): Compiled {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, discriminator: true });
  addFormats(ajv, ['date-time', 'uri']);
  ajv.addFormat('arm-resource-id', { type: 'string', validate: isArmResourceId });
  for (const schema of SHARED_SCHEMAS) ajv.addSchema(schema);
  for (const kind of SCHEMA_KINDS) ajv.addSchema(SCHEMAS[kind]);
  const out: Partial<Record<SchemaKind, ValidateFunction>> = {};
  for (const kind of SCHEMA_KINDS) {
    const fn = ajv.getSchema(SCHEMAS[kind].$id);
    if (!fn) throw new Error(`schema ${kind} (${SCHEMAS[kind].$id}) did not compile`);
    out[kind] = fn;
  }
  return out as Compiled;
}

/**
 * Compiles every schema now if not done yet. It takes a few hundred milliseconds of blocked event
 * loop, so a long-running component calls it at start-up, before its first message: compiling on
 * first use would delay that message (the first wake-up hint took ~280 ms) and everything else.
 */
export function compileSchemas(): void {
  compiled ??= compileAll();
}

function validatorFor<K extends SchemaKind>(kind: K): ValidateFunction<Validated<K>> {
  compiled ??= compileAll();
  return compiled[kind] as ValidateFunction<Validated<K>>;
}

/** Keywords that only say "a sub-schema failed"; their sub-schemas' errors are the useful ones. */
const COMBINATORS = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'not']);

function toIssue(error: ErrorObject): ValidationIssue {
  let pointer = error.instancePath;
  let message = error.message ?? 'is invalid';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    pointer = `${pointer}/${String(params.missingProperty)}`;
    message = 'is required';
  } else if (error.keyword === 'discriminator') {
    pointer = `${pointer}/${String(params.tag)}`;
    message = params.error === 'tag' ? 'is required and must be a string' : 'is not one of the known values';
  } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (error.keyword === 'const') {
    message = `must be ${JSON.stringify(params.allowedValue)}`;
  }
  const field =
    pointer === ''
      ? '(document)'
      : pointer
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
          .join('.');
  return { pointer, field, message };
}

function documentIdOf(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return undefined;
}

/**
 * Deepest nesting accepted (the document itself is level 1): the per-item nesting limit Cosmos DB
 * documents for embedded objects and arrays, far beyond any real document. ajv validates recursive
 * schemas (ARM error `details`) recursively, so a much deeper value would overflow the stack; it is
 * refused first, by an iterative walk, with the top-level field it is under.
 */
export const MAX_NESTING_DEPTH = 128;

function tooDeep<K extends SchemaKind>(kind: K, value: unknown): CheckResult<K> | undefined {
  const pointer = tooDeepAt(value, MAX_NESTING_DEPTH);
  if (pointer === undefined) return undefined;
  const field = pointer === '' ? '(document)' : pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  const issue: ValidationIssue = { pointer, field, message: `nests deeper than ${MAX_NESTING_DEPTH} levels` };
  return { ok: false, error: new ValidationError(kind, documentIdOf(value), [issue]) };
}

/** Checks `value` against the schema of `kind` without throwing. */
export function check<K extends SchemaKind>(kind: K, value: unknown): CheckResult<K> {
  const deep = tooDeep(kind, value);
  if (deep) return deep;
  const fn = validatorFor(kind);
  if (fn(value)) return { ok: true, value };
  const errors = fn.errors ?? [];
  const specific = errors.filter((e) => !COMBINATORS.has(e.keyword));
  const issues = (specific.length > 0 ? specific : errors).map(toIssue);
  const unique = issues.filter((issue, i) => issues.findIndex((o) => o.pointer === issue.pointer && o.message === issue.message) === i);
  const list: [ValidationIssue, ...ValidationIssue[]] =
    unique.length > 0 ? (unique as [ValidationIssue, ...ValidationIssue[]]) : [{ pointer: '', field: '(document)', message: 'is invalid' }];
  return { ok: false, error: new ValidationError(kind, documentIdOf(value), list) };
}

/** Returns `value` typed as `kind`, or throws ValidationError naming the document and field. */
export function validate<K extends SchemaKind>(kind: K, value: unknown): Validated<K> {
  const result = check(kind, value);
  if (!result.ok) throw result.error;
  return result.value;
}

/** Type guard form of `validate`. */
export function isValid<K extends SchemaKind>(kind: K, value: unknown): value is Validated<K> {
  return tooDeepAt(value, MAX_NESTING_DEPTH) === undefined && validatorFor(kind)(value);
}
