// Says in one line which Node.js the project needs when the running one is older than package.json's
// "engines" (">=X.Y.Z"), and exits 1: npm start/npm test call it first, so an old Node gets this line
// instead of a stack trace from a dependency. Plain old JavaScript, so that any Node can parse it.
var engines = require('../package.json').engines.node;
var want = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines);
if (!want) {
  console.error('check-node: package.json engines.node "' + engines + '" is not of the form >=X.Y.Z');
  process.exit(1);
}
var have = process.versions.node.split('.').map(Number);
for (var i = 0; i < 3; i++) {
  var w = Number(want[i + 1] || 0);
  if (have[i] > w) break;
  if (have[i] < w) {
    console.error(
      'opstream needs Node.js ' +
        engines +
        ' (this is ' +
        process.version +
        '): install Node.js 24 LTS, ' +
        'or run `export PATH="$(.ci/setup-node):$PATH"` to fetch it from the npm registry.',
    );
    process.exit(1);
  }
}
