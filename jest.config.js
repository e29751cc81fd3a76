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
    '/node_modules/commander/.+\\.js$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!commander/)'],
  // Workspace packages run from their TypeScript sources too (their dist/ is what other projects get).
  moduleNameMapper: {
    '^@opstream/changefeed$': '<rootDir>/src/changefeed/index.ts',
    '^@opstream/changefeed/epk$': '<rootDir>/src/changefeed/epk.ts',
    '^@opstream/hint-sender$': '<rootDir>/src/hint-sender/index.ts',
    '^@opstream/schemas/(.*)$': '<rootDir>/schemas/$1',
    ...Object.fromEntries(
      Object.entries({
        'stand-in-kit': 'shared',
        'cosmos-emulator': 'cosmos-emulator',
        'service-bus-emulator': 'service-bus',
        'clusters-service-simulator': 'clusters-service',
        'token-service': 'identity',
        'frontend-simulator': 'frontend',
        'otlp-receiver': 'otlp-receiver',
        'local-stack': 'local-stack',
      }).flatMap(([name, folder]) => [
        [`^@opstream/${name}$`, `<rootDir>/infra/${folder}/index.ts`],
        [`^@opstream/${name}/(.*)$`, `<rootDir>/infra/${folder}/$1`],
      ]),
    ),
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  maxWorkers: 2,
};
