import { SqlMessageView, SqlValue } from './sql-filter';

/**
 * A SQL filter's or action's `sqlParameters` (`{"@name": value}`), as the service substitutes them: an
 * `@name` in the expression reads the parameter instead of a message property. Dates compare as epoch ms,
 * as the stand-in's system times do.
 */
export function withParameters(view: SqlMessageView, parameters: Record<string, unknown> | undefined): SqlMessageView {
  if (!parameters) return view;
  return {
    system: (name) => view.system(name),
    user: (name) => (name.startsWith('@') && name in parameters ? sqlValue(parameters[name]) : view.user(name)),
  };
}

function sqlValue(v: unknown): SqlValue | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  return undefined;
}
