import { JsonValue } from './types';

/**
 * Aggregate functions over the values of one group: the final value (an answer computed whole) and the
 * partial a range sends the SDK under a query plan, in the shapes `@azure/cosmos` merges (COUNT, COUNTIF and SUM
 * as numbers, AVG as `{sum, count}`, MIN/MAX as `{min}`/`{max}`, MakeList/MakeSet as arrays).
 * Undefined values are skipped; SUM and AVG over a non-number are undefined; MIN/MAX order types
 * null < boolean < number < string and skip objects and arrays.
 */
export const AGGREGATE_TYPES: Record<string, AggregateType> = {
  COUNT: 'Count',
  COUNTIF: 'CountIf',
  SUM: 'Sum',
  MIN: 'Min',
  MAX: 'Max',
  AVG: 'Average',
  MAKELIST: 'MakeList',
  MAKESET: 'MakeSet',
};
export type AggregateType = 'Count' | 'CountIf' | 'Sum' | 'Min' | 'Max' | 'Average' | 'MakeList' | 'MakeSet';

const TYPE_ORDER = (v: JsonValue): number =>
  v === null ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3 : -1;

function compare(a: JsonValue, b: JsonValue): number {
  const ta = TYPE_ORDER(a);
  const tb = TYPE_ORDER(b);
  if (ta !== tb) return ta - tb;
  return a === b ? 0 : (a as string | number | boolean) < (b as string | number | boolean) ? -1 : 1;
}

/** Key-order-independent text of a value: equal JSON values, equal text (DISTINCT, MakeSet, groups). */
export function canonical(v: JsonValue | undefined): string {
  if (v === undefined) return 'u';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export class Accumulator {
  private count = 0;
  private sum = 0;
  private notNumeric = false;
  private best: JsonValue | undefined;
  private readonly list: JsonValue[] = [];
  private readonly set = new Map<string, JsonValue>();

  constructor(readonly type: AggregateType) {}

  add(v: JsonValue | undefined): void {
    if (v === undefined) return;
    switch (this.type) {
      case 'Count':
        this.count++;
        return;
      case 'CountIf':
        if (v === true) this.count++;
        return;
      case 'Sum':
      case 'Average':
        if (typeof v === 'number') {
          this.sum += v;
          this.count++;
        } else this.notNumeric = true;
        return;
      case 'Min':
      case 'Max':
        if (TYPE_ORDER(v) < 0) return;
        if (this.best === undefined || (this.type === 'Min' ? compare(v, this.best) < 0 : compare(v, this.best) > 0)) this.best = v;
        return;
      case 'MakeList':
        this.list.push(v);
        return;
      case 'MakeSet':
        if (!this.set.has(canonical(v))) this.set.set(canonical(v), v);
    }
  }

  result(): JsonValue | undefined {
    switch (this.type) {
      case 'Count':
      case 'CountIf':
        return this.count;
      case 'Sum':
        return this.notNumeric ? undefined : this.sum;
      case 'Average':
        return this.notNumeric || this.count === 0 ? undefined : this.sum / this.count;
      case 'Min':
      case 'Max':
        return this.best;
      case 'MakeList':
        return [...this.list];
      case 'MakeSet':
        return [...this.set.values()];
    }
  }

  /** What one range contributes, for the SDK to merge with the other ranges'. */
  partial(): JsonValue | undefined {
    switch (this.type) {
      case 'Average':
        return this.notNumeric || this.count === 0 ? undefined : { sum: this.sum, count: this.count };
      case 'Min':
        return this.best === undefined ? {} : { min: this.best };
      case 'Max':
        return this.best === undefined ? {} : { max: this.best };
      default:
        return this.result();
    }
  }
}
