import {
  CLUSTERS_SERVICE_DEFAULTS,
  ClustersServiceClient,
  ClustersServiceOptionsError,
  parseRetryAfter,
} from '../../../src/clusters-service';

describe('Clusters Service client options', () => {
  it.each([
    [{ baseUrl: 'not a url' }, 'baseUrl must be an absolute http(s) URL'],
    [{ baseUrl: 'ftp://cs' }, 'baseUrl must use http or https'],
    [{ baseUrl: 'http://cs', requestTimeoutMs: 0 }, 'requestTimeoutMs must be a positive number'],
    [{ baseUrl: 'http://cs', pageSize: 0 }, 'pageSize must be a whole number >= 1'],
    [{ baseUrl: 'http://cs', retry: { retries: -1 } }, 'retry.retries must be >= 0'],
  ])('reject %j saying how to fix it', (options, message) => {
    expect(() => new ClustersServiceClient(options)).toThrow(ClustersServiceOptionsError);
    expect(() => new ClustersServiceClient(options)).toThrow(message);
  });

  it('defaults are one constant', () => {
    expect(CLUSTERS_SERVICE_DEFAULTS).toMatchObject({ requestTimeoutMs: 10_000, pageSize: 100, retry: { retries: 3 } });
  });

  it.each([
    [null, undefined],
    ['', undefined],
    ['2', 2000],
    ['0.5', 500],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['soon', undefined],
  ] as const)('Retry-After %j is %j ms', (header, ms) => {
    expect(parseRetryAfter(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(ms);
  });
});
