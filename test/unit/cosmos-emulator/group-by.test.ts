import { groupPartials, groupResults, planGroupQuery } from '@opstream/cosmos-emulator/group-by';
import { liftClauses } from '@opstream/cosmos-emulator/sql-text';
import { JsonObject } from '@opstream/cosmos-emulator/types';

const docs: JsonObject[] = [
  { _rid: 'a', g: 'p', v: 3, m: 'x' },
  { _rid: 'b', g: 'p', v: 'three', m: 1 },
  { _rid: 'c', g: 'q', v: 5, m: null },
  { _rid: 'd', g: 'q', v: 7, m: true },
  { _rid: 'e', v: 1 },
];

function answer(sql: string, partial = false): unknown[] {
  const lifted = liftClauses(sql);
  const plan = planGroupQuery(sql, lifted.core, lifted.groupBy);
  const spec = { query: sql, parameters: [] };
  return partial ? groupPartials(plan, spec, docs) : groupResults(plan, spec, docs);
}

describe('GROUP BY and aggregates over the engine rows', () => {
  it('aggregates as the service: COUNT skips undefined, SUM/AVG of a non-number are undefined, MIN/MAX order types', () => {
    expect(answer('SELECT c.g, COUNT(c.m) AS n, SUM(c.v) AS s, AVG(c.v) AS a, MIN(c.m) AS lo, MAX(c.m) AS hi FROM c GROUP BY c.g')).toEqual(
      [
        { g: 'p', n: 2, lo: 1, hi: 'x' },
        { g: 'q', n: 2, s: 12, a: 6, lo: null, hi: true },
        { n: 0, s: 1, a: 1 },
      ],
    );
  });

  it('answers the SDK partial rows: groupByItems, {item} aggregates, {min}/{max}, {sum, count}', () => {
    expect(answer('SELECT c.g, MIN(c.v) AS lo, AVG(c.v) AS a FROM c WHERE IS_NUMBER(c.v) GROUP BY c.g', true)).toEqual([
      { groupByItems: [{ item: 'p' }], payload: { g: 'p', lo: { item: { min: 3 } }, a: { item: { sum: 3, count: 1 } } } },
      { groupByItems: [{ item: 'q' }], payload: { g: 'q', lo: { item: { min: 5 } }, a: { item: { sum: 12, count: 2 } } } },
      { groupByItems: [{}], payload: { lo: { item: { min: 1 } }, a: { item: { sum: 1, count: 1 } } } },
    ]);
    expect(answer('SELECT VALUE MakeSet(c.g) FROM c', true)).toEqual([[{ item: ['p', 'q'] }]]);
  });

  it('keeps answering after more distinct grouped queries than its plan cache holds', () => {
    for (let i = 0; i < 300; i++) expect(answer(`SELECT VALUE COUNT(1) FROM c WHERE c.v > ${i - 100}`)).toHaveLength(1);
    expect(answer('SELECT VALUE COUNT(1) FROM c WHERE c.v > -100')).toEqual([4]); // 'three' > -100 is undefined
  });
});
