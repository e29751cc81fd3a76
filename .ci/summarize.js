// Prints jest's JSON results (one file or several, added up) as the closing line CI reads: "N passed, N failed".
// A suite that failed to run (syntax error, crash) counts as a failure even with no test inside.
const fs = require('fs');
let passed = 0;
let failed = 0;
let pending = 0;
for (const file of process.argv.slice(2)) {
  let r;
  try {
    r = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    console.log(`ci: no jest results at ${file}: ${err.message}`);
    failed += 1;
    continue;
  }
  const brokenSuites = r.testResults.filter((s) => s.status === 'failed' && s.assertionResults.every((a) => a.status !== 'failed')).length;
  for (const s of r.testResults.filter((s) => s.status === 'failed')) console.log(`FAILED ${s.name}`);
  passed += r.numPassedTests;
  failed += r.numFailedTests + brokenSuites;
  pending += r.numPendingTests;
}
console.log(`${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
