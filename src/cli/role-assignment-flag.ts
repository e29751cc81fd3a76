import { InvalidArgumentError } from 'commander';

/**
 * `--role-assignment <object id>=<role>` of the emulator commands (Cosmos DB, Service Bus): repeated,
 * collected, then grouped by principal as their `entraId.roleAssignments` option takes them.
 */
export function collectRoleAssignment(example: string) {
  return (value: string, all: string[]): string[] => {
    if (!/^[^=]+=.+$/.test(value)) throw new InvalidArgumentError(`--role-assignment takes <principal object id>=<role name or id>, e.g. ${example}`);
    return [...all, value];
  };
}

/** The collected values by object id; undefined when none was given. */
export function roleAssignments(values: string[]): Record<string, string[]> | undefined {
  if (values.length === 0) return undefined;
  const out: Record<string, string[]> = {};
  for (const v of values) {
    const i = v.indexOf('=');
    (out[v.slice(0, i)] ??= []).push(v.slice(i + 1));
  }
  return out;
}
