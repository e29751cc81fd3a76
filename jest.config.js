/** Tests run from TypeScript sources (transpile only; `npm run typecheck` does the type checking).
 *  Child-process tests spawn the compiled `dist/` build, which `pretest` produces. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: 'tsconfig.test.json' }],
    // commander 15 ships ES modules only. Node >= 22.12 require()s them natively, jest's module loader does not
    // (without --experimental-vm-modules), so tests compile that one package to CommonJS as they do the sources.
    '/node_modules/commander/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!commander/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  maxWorkers: 2,
};
