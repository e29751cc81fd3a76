import { liftClauses } from '@opstream/cosmos-emulator/sql-text';
import { like as sqlLike } from '@opstream/cosmos-emulator/like';

describe('lifting the clauses the engine lacks out of the query text', () => {
  it('lifts DISTINCT, GROUP BY and OFFSET/LIMIT at the top level only, and keeps TOP apart', () => {
    const q = liftClauses('SELECT TOP 5 DISTINCT c.a, COUNT(1) AS n FROM c WHERE c.b > 1 GROUP BY c.a, c["x y"] OFFSET @o LIMIT 10');
    expect(q).toMatchObject({ distinct: true, groupBy: ['c.a', 'c["x y"]'], offset: '@o', limit: '10', hasTop: true, hasOrderBy: false });
    expect(q.core.replace(/\s+/g, ' ')).toBe('SELECT TOP 5 c.a, COUNT(1) AS n FROM c WHERE c.b > 1');
    expect(q.coreWithoutTop.replace(/\s+/g, ' ')).toBe('SELECT c.a, COUNT(1) AS n FROM c WHERE c.b > 1');
    expect(q.withoutLimits.replace(/\s+/g, ' ')).toBe('SELECT DISTINCT c.a, COUNT(1) AS n FROM c WHERE c.b > 1 GROUP BY c.a, c["x y"]');
  });

  it('is not fooled by strings, comments, properties named like keywords or subqueries', () => {
    const q = liftClauses(
      `SELECT c.offset, c.distinct FROM c WHERE c.s = 'GROUP BY x OFFSET 1 LIMIT 2' -- DISTINCT\n AND EXISTS(SELECT VALUE t FROM t IN c.tags GROUP BY t)`,
    );
    expect(q).toMatchObject({ distinct: false, groupBy: [], offset: undefined });
  });

  it('rewrites [NOT] LIKE with a literal or parameter pattern and an optional ESCAPE', () => {
    expect(liftClauses("SELECT * FROM c WHERE c.n LIKE 'a%'").core).toBe("SELECT * FROM c WHERE c.n = __ext_like_marker('a%', '')");
    expect(liftClauses("SELECT * FROM c WHERE c.n NOT LIKE @p ESCAPE '!'").core).toBe(
      "SELECT * FROM c WHERE c.n != __ext_like_marker(@p, '!')",
    );
    expect(() => liftClauses('SELECT * FROM c WHERE c.n LIKE c.m')).toThrow(/LIKE/);
    expect(() => liftClauses('SELECT * FROM c OFFSET 1 LIMIT 2 WHERE true')).toThrow(/OFFSET/);
  });

  it('matches LIKE patterns as the service: %, _, [classes], [^negated], escapes, case-sensitive', () => {
    const like = (p: string, s: string, e?: string): boolean => sqlLike(s, p, e);
    expect([like('a%', 'abc'), like('a%', 'bac'), like('_b_', 'abc'), like('_b_', 'abcd')]).toEqual([true, false, true, false]);
    expect([like('[a-c]x', 'bx'), like('[^a-c]x', 'bx'), like('[^a-c]x', 'dx')]).toEqual([true, false, true]);
    expect([like('100!%', '100%', '!'), like('100!%', '1000', '!'), like('a.b', 'axb'), like('A%', 'abc')]).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(like('%\n%', 'line\nbreak')).toBe(true);
    expect([like('a-b%', 'a-b c'), like('%[😀-😂]', 'x😁'), like('[]x', '[]x'), like('%', ''), like('_', '')]).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('matches hostile patterns in bounded time (text × pattern steps, no backtracking blow-up)', () => {
    const text = 'a'.repeat(20_000);
    const started = Date.now();
    expect(sqlLike(text, `${'%a'.repeat(30)}%b`)).toBe(false);
    expect(sqlLike(text, `${'%'.repeat(500)}a`)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
