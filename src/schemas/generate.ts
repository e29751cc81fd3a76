/**
 * Generates `types.generated.ts` from the JSON Schemas, so the TypeScript types cannot drift from
 * what the validator enforces. Run `npm run schemas:types` after editing a schema; the unit test
 * "generated schema types are up to date" fails while the committed file differs from this output.
 *
 * Runs as a script only (`node -r ./src/schemas/register-ts.cjs src/schemas/generate.ts [--stdout]`):
 * json-schema-to-typescript loads prettier through a dynamic import, which jest's VM cannot do.
 */
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { SCHEMAS, SCHEMA_KINDS, schemaFileName } from './catalog';

/** The repository's `schemas/` folder, found from here whether running from `src/` or `dist/src/`. */
export function schemasDir(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'schemas'))) return path.join(dir, 'schemas');
    if (path.dirname(dir) === dir) throw new Error(`no schemas/ folder above ${from}`);
  }
}

export const GENERATED_FILE = path.join(schemasDir(), '..', 'src', 'domain', 'types.generated.ts');

const BANNER = `/**
 * GENERATED from schemas/*.schema.json by src/schemas/generate.ts (npm run schemas:types).
 * Do not edit: change the schema and regenerate.
 */`;

/** The TypeScript source for every kind in the catalog, plus \`SchemaCatalog\` mapping kind → type. */
export async function generateTypes(): Promise<string> {
  const root: JSONSchema = {
    title: 'SchemaCatalog',
    description: 'Schema kind → the type of a value that passed validation of that kind.',
    type: 'object',
    additionalProperties: false,
    required: [...SCHEMA_KINDS],
    properties: Object.fromEntries(SCHEMA_KINDS.map((kind) => [kind, { $ref: schemaFileName(SCHEMAS[kind]) }])),
  };
  return compile(root, 'SchemaCatalog', {
    cwd: schemasDir(),
    bannerComment: BANNER,
    // Schemas leave additionalProperties open (tolerant reader); the types list only known fields.
    additionalProperties: false,
    unknownAny: true,
    style: { singleQuote: true, printWidth: 120 },
  });
}

async function main(): Promise<void> {
  const source = await generateTypes();
  if (process.argv.includes('--stdout')) {
    process.stdout.write(source);
    return;
  }
  writeFileSync(GENERATED_FILE, source);
  process.stdout.write(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
