import {
  fieldValue,
  parseSearch,
  parseSearchAlternatives,
  SearchSyntaxError,
  termMatches,
  termValues,
} from '@opstream/clusters-service-simulator/search';

describe('simulator search expressions', () => {
  it('parses and-joined equality terms', () => {
    expect(parseSearch("azure.subscription_id = 'abc' and azure.resource_name='c1'   AND name = 'x y'")).toEqual([
      { field: 'azure.subscription_id', value: 'abc' },
      { field: 'azure.resource_name', value: 'c1' },
      { field: 'name', value: 'x y' },
    ]);
  });

  it("reads '' inside a value as one quote, so a quote cannot end the value early", () => {
    expect(parseSearch("azure.resource_name = 'o''brien'' and name = ''x'")).toEqual([
      { field: 'azure.resource_name', value: "o'brien' and name = 'x" },
    ]);
  });

  it("parses `field in ('v1', 'v2')`, in any casing, with or without spaces, mixed with equality terms", () => {
    expect(parseSearch("id in ('a','b')")).toEqual([{ field: 'id', values: ['a', 'b'] }]);
    expect(parseSearch("id IN ( 'a' , 'b' ,'c' )")).toEqual([{ field: 'id', values: ['a', 'b', 'c'] }]);
    expect(parseSearch("id In('a')")).toEqual([{ field: 'id', values: ['a'] }]);
    expect(parseSearch("name = 'x' AND id in ('a', 'b') and azure.resource_name in ('r')")).toEqual([
      { field: 'name', value: 'x' },
      { field: 'id', values: ['a', 'b'] },
      { field: 'azure.resource_name', values: ['r'] },
    ]);
    expect(parseSearch("id in ('a')and name='x'")).toEqual([
      { field: 'id', values: ['a'] },
      { field: 'name', value: 'x' },
    ]);
  });

  it("reads '' inside list values as one quote; commas and parentheses inside quotes are data", () => {
    expect(parseSearch("name in ('o''brien', 'a, b', 'x'') or (''y', '''')")).toEqual([
      { field: 'name', values: ["o'brien", 'a, b', "x') or ('y", "'"] },
    ]);
    expect(parseSearch("name in ('')")).toEqual([{ field: 'name', values: [''] }]);
  });

  it('a field named like the keyword is still a field', () => {
    expect(parseSearch("in = 'a' and index in ('b')")).toEqual([
      { field: 'in', value: 'a' },
      { field: 'index', values: ['b'] },
    ]);
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

  it.each([
    ["id in ('a', 'b'", 'unterminated list: expected "," or ")"', 15],
    ["id in ('a',", 'expected a value in single quotes', 11],
    ["id in ('a', )", 'expected a value in single quotes', 12],
    ['id in ()', 'empty list: expected at least one value', 7],
    ['id in (  )', 'empty list: expected at least one value', 9],
    ["id in ('a' 'b')", 'expected "," or ")" in the list', 11],
    ["id in ('a';'b')", 'expected "," or ")" in the list', 10],
    ["id in 'a'", 'expected "(" after "in"', 6],
    ['id in', 'expected "(" after "in"', 5],
    ['id in (a)', 'expected a value in single quotes', 7],
    ["id in ('a)", 'unterminated string', 8],
    ["id inn ('a')", 'expected "=" or "in" after id', 3],
    ["id not in ('a')", 'expected "=" or "in" after id', 3],
    ["id in ('a') or id in ('b')", 'expected "and" or the end of the expression', 12],
    ["id in ('a') and", 'expected a field name', 15],
  ])('rejects %j with a position', (expression, message, position) => {
    let error: unknown;
    try {
      parseSearch(expression);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SearchSyntaxError);
    expect(error).toMatchObject({ position, message: `${message} at position ${position}` });
  });

  it('a term matches when the field equals its value, or any value of its list', () => {
    const cluster = { id: 'b', name: 'n', azure: { resource_name: 'r' } };
    const [inList, equals, otherList, nested] = parseSearch(
      "id in ('a', 'b') and name = 'n' and id in ('c') and azure.resource_name in ('x', 'r')",
    );
    expect(termValues(inList!)).toEqual(['a', 'b']);
    expect(termValues(equals!)).toEqual(['n']);
    expect(termMatches(cluster, inList!)).toBe(true);
    expect(termMatches(cluster, equals!)).toBe(true);
    expect(termMatches(cluster, otherList!)).toBe(false);
    expect(termMatches(cluster, nested!)).toBe(true);
    expect(termMatches({ id: 3 }, { field: 'id', values: ['3'] })).toBe(false);
  });

  it('reads dotted fields, string leaves only', () => {
    const cluster = { name: 'c', azure: { resource_name: 'r' }, replicas: 3 };
    expect(fieldValue(cluster, 'azure.resource_name')).toBe('r');
    expect(fieldValue(cluster, 'azure.missing')).toBeUndefined();
    expect(fieldValue(cluster, 'replicas')).toBeUndefined();
  });
});

describe('simulator search alternatives (`or`)', () => {
  it('splits at `or` outside quotes and lists, unwrapping a parenthesised conjunction', () => {
    expect(
      parseSearchAlternatives("id in ('a', 'b') or (azure.subscription_id = 's' and azure.resource_name = 'n') OR name = 'x'"),
    ).toEqual([
      [{ field: 'id', values: ['a', 'b'] }],
      [
        { field: 'azure.subscription_id', value: 's' },
        { field: 'azure.resource_name', value: 'n' },
      ],
      [{ field: 'name', value: 'x' }],
    ]);
  });

  it("an `or` inside a quoted value is data, and a name like 'order' is a field", () => {
    expect(parseSearchAlternatives("name = 'a or b' or order = 'c'")).toEqual([
      [{ field: 'name', value: 'a or b' }],
      [{ field: 'order', value: 'c' }],
    ]);
    expect(parseSearchAlternatives("name in ('x'') or (''y')")).toEqual([[{ field: 'name', values: ["x') or ('y"] }]]);
  });

  it('one alternative is what parseSearch reads; an empty expression matches everything', () => {
    expect(parseSearchAlternatives("name = 'a' and id = 'b'")).toEqual([parseSearch("name = 'a' and id = 'b'")]);
    expect(parseSearchAlternatives('')).toEqual([[]]);
  });

  it.each([
    ["name = 'a' or", 'expected "and"', 11],
    ["name = 'a' or ", 'on each side of "or"', 13],
    ["or name = 'a'", 'expected', 0],
    ["(name = 'a' or id = 'b')", 'expected', 0],
    ["name = 'a' or (id = 'b'", 'expected', 14],
  ])('rejects %j with the position in the whole expression', (expression, message, atLeast) => {
    let err: unknown;
    try {
      parseSearchAlternatives(expression);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SearchSyntaxError);
    expect((err as SearchSyntaxError).message).toContain(message);
    expect((err as SearchSyntaxError).position).toBeGreaterThanOrEqual(atLeast);
  });
});
