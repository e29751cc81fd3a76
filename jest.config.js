/** Tests run from TypeScript sources (transpile only; `npm run typecheck` does the type checking).
 *  Child-process tests spawn the compiled `dist/` build, which `pretest` produces. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: 'tsconfig.test.json' }] },
  moduleNameMapper: { '^@opstream/changefeed$': '<rootDir>/src/changefeed/index.ts' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  maxWorkers: 2,
};
