/**
 * A minimal `require` hook that transpiles TypeScript on the fly (no type checking), so the schema
 * type generator runs without a build: `node -r ./src/schemas/register-ts.cjs src/schemas/generate.ts`.
 * Only used by `npm run schemas:types` and the test that checks the generated file is current.
 */
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true },
  });
  module._compile(outputText, filename);
};
