import { fieldValue, parseSearch, SearchSyntaxError } from '../../../infra/clusters-service/search';

describe('simulator search expressions', () => {
  it('parses and-joined equality terms', () => {
    expect(parseSearch("azure.subscription_id = 'abc' and azure.resource_name='c1'   AND name = 'x y'")).toEqual([
      { field: 'azure.subscription_id', value: 'abc' },
      { field: 'azure.resource_name', value: 'c1' },
      { field: 'name', value: 'x y' },
    ]);
  });

  it("reads '' inside a value as one quote, so a quote cannot end the value early", () => {
    expect(parseSearch("azure.resource_name = 'o''brien'' and name = ''x'")).toEqual([{ field: 'azure.resource_name', value: "o'brien' and name = 'x" }]);
  });

  it('an empty expression matches everything', () => {
    expect(parseSearch('   ')).toEqual([]);
  });

  it.each([
    ["name = 'a' or name = 'b'", 'expected "and"'],
    ["name = 'a", 'unterminated string'],
    ['name = a', 'single quotes'],
    ["name != 'a'", 'expected "="'],
    ["= 'a'", 'expected a field name'],
    ["name = 'a' and", 'expected a field name'],
    ["name = 'a' andname = 'b'", 'expected "and"'],
  ])('rejects %j', (expression, message) => {
    expect(() => parseSearch(expression)).toThrow(SearchSyntaxError);
    expect(() => parseSearch(expression)).toThrow(message);
  });

  it('reads dotted fields, string leaves only', () => {
    const cluster = { name: 'c', azure: { resource_name: 'r' }, replicas: 3 };
    expect(fieldValue(cluster, 'azure.resource_name')).toBe('r');
    expect(fieldValue(cluster, 'azure.missing')).toBeUndefined();
    expect(fieldValue(cluster, 'replicas')).toBeUndefined();
  });
});
