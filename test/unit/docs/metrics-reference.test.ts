import { metricsReferenceMismatches } from '../../helpers/metrics-reference';

const DOC = [
  '| metric | type | labels | meaning |',
  '|---|---|---|---|',
  '| `opstream_x_total` | counter | `reason` (`a`, `b`), `processor` (e.g. `p`) | x |',
  '| `opstream_calls_total` | counter | `status` (HTTP status, `timeout`) | calls |',
  '| `opstream_lag_seconds` | histogram | `request` | lag |',
].join('\n');

const exposition = (...lines: string[]): string =>
  [
    '# TYPE opstream_x_total counter',
    'opstream_x_total{reason="a",processor="any-name"} 0',
    '# TYPE opstream_calls_total counter',
    'opstream_calls_total{status="404"} 2',
    'opstream_calls_total{status="timeout"} 1',
    '# TYPE opstream_lag_seconds histogram',
    'opstream_lag_seconds_bucket{le="0.1",request="Create"} 1',
    'opstream_lag_seconds_sum{request="Create"} 0.05',
    'opstream_lag_seconds_count{request="Create"} 1',
    ...lines,
  ].join('\n');

describe('metricsReferenceMismatches', () => {
  it('finds nothing when every family, label and listed value is documented', () => {
    expect(metricsReferenceMismatches(exposition(), DOC)).toEqual([]);
  });

  it('names a family without a row, a wrong type, an unnamed label and an unlisted value', () => {
    const found = metricsReferenceMismatches(
      exposition(
        '# TYPE opstream_new_total counter',
        'opstream_new_total 1',
        'opstream_x_total{reason="c",processor="p"} 1',
        'opstream_calls_total{status="timeout",endpoint="GET /x"} 1',
      ),
      DOC.replace('| `opstream_lag_seconds` | histogram', '| `opstream_lag_seconds` | gauge'),
    );
    expect(found).toEqual([
      'opstream_x_total: reason="c" is exported; the row lists "a", "b"',
      'opstream_calls_total: label endpoint (e.g. "GET /x") is not named in the row',
      'opstream_lag_seconds: the doc says gauge, /metrics says histogram',
      'opstream_new_total (counter) is exported but has no row',
    ]);
  });
});
