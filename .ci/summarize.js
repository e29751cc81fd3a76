// Prints jest's JSON results as the closing line CI reads: "N passed, N failed".
// A suite that failed to run (syntax error, crash) counts as a failure even with no test inside.
const fs = require('fs');
const file = process.argv[2];
let r;
try {
  r = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`ci: no jest results at ${file}: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const brokenSuites = r.testResults.filter((s) => s.status === 'failed' && s.assertionResults.every((a) => a.status !== 'failed')).length;
const failed = r.numFailedTests + brokenSuites;
for (const s of r.testResults.filter((s) => s.status === 'failed')) console.log(`FAILED ${s.name}`);
console.log(`${r.numPassedTests} passed, ${failed} failed${r.numPendingTests ? `, ${r.numPendingTests} skipped` : ''}`);
process.exit(failed > 0 || r.numPassedTests === 0 ? 1 : 0);
