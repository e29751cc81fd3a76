import { editDistance, nearestFileKey, unknownVariables, unknownVariableWarning } from '../../../src/config/nearest-setting';
import { SETTINGS } from '../../../src/config/settings';

describe('the setting a near name meant', () => {
  it('counts edits, a transposition as one', () => {
    expect(editDistance('database', 'database')).toBe(0);
    expect(editDistance('databse', 'database')).toBe(1);
    expect(editDistance('dtaabase', 'database')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it.each([
    ['cosmos.databse', 'cosmos.database'],
    ['COSMOS.DATABASE', 'cosmos.database'],
    ['database', 'cosmos.database'],
    ['clusterService.url', 'clustersService.url'],
    ['cosmo', 'cosmos'],
    ['cosmos.frobnicate', undefined],
    // Several settings end in "token" (cosmos has none): no single guess.
    ['token', undefined],
  ])('a file key %s meant %s', (key, meant) => {
    expect(nearestFileKey(key)).toBe(meant);
  });

  it('an OPSTREAM_* variable that names no setting is reported with the nearest setting; settings, variables read elsewhere and renamed names are not', () => {
    const env = {
      OPSTREAM_COSMOS_DATABSE: 'db',
      OPSTREAM_CLUSTER_SERVICE_URL: 'http://127.0.0.1:9',
      OPSTREAM_WHATEVER_ELSE_ENTIRELY: '1',
      OPSTREAM_COSMOS_DATABASE: 'db',
      OPSTREAM_LOG_SILENT: '1',
      OPSTREAM_BUILD_COMMIT: 'abc',
      OPSTREAM_PIPELINE_FOLLOW_MAX_DELAY_MS: '500',
      PATH: '/bin',
    };
    const found = unknownVariables(env);
    expect(found.map((v) => [v.name, v.nearest?.env])).toEqual([
      ['OPSTREAM_CLUSTER_SERVICE_URL', 'OPSTREAM_CLUSTERS_SERVICE_URL'],
      ['OPSTREAM_COSMOS_DATABSE', 'OPSTREAM_COSMOS_DATABASE'],
      ['OPSTREAM_WHATEVER_ELSE_ENTIRELY', undefined],
    ]);
    expect(unknownVariableWarning(found[1])).toBe(
      'environment variable OPSTREAM_COSMOS_DATABSE names no setting and is ignored; did you mean OPSTREAM_COSMOS_DATABASE (cosmos.database)?',
    );
    expect(unknownVariableWarning(found[2])).toBe(
      'environment variable OPSTREAM_WHATEVER_ELSE_ENTIRELY names no setting and is ignored; opstream config check lists every setting and its variable',
    );
    expect(unknownVariables(Object.fromEntries(SETTINGS.map((s) => [s.env, 'x'])))).toEqual([]);
  });
});
