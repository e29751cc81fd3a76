#!/usr/bin/env node
// The bin npm links at install time, before the package is compiled: it runs the compiled command
// line (dist/bin.js), and says how to build it when it is missing.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const compiled = join(__dirname, '..', 'dist', 'bin.js');
if (!existsSync(compiled)) {
  console.error(`${compiled} is missing: build the package first (npm run build)`);
  process.exit(2);
}
require(compiled);
