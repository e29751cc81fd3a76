/** Tests run from TypeScript sources (transpile only; `npm run typecheck` does the type checking).
 *  Child-process tests spawn the compiled `dist/` build, which `pretest` produces. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  maxWorkers: 2,
};
