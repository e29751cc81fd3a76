import {
  dateTimeAdd,
  dateTimeBin,
  dateTimeDiff,
  dateTimeFromParts,
  dateTimePart,
  dateTimeToTicks,
  ticksToDateTime,
  timestampToDateTime,
} from '@opstream/cosmos-emulator/date-time';

describe('Cosmos SQL date and time functions', () => {
  it('adds every part exactly, to the 100 ns tick, before and after 1970', () => {
    expect(dateTimeAdd('ns', 100, '2024-05-06T07:08:09.0000000Z')).toBe('2024-05-06T07:08:09.0000001Z');
    expect(dateTimeAdd('ns', 99, '2024-05-06T07:08:09.0000000Z')).toBe('2024-05-06T07:08:09.0000000Z');
    expect(dateTimeAdd('mcs', 3, '2024-05-06T07:08:09.9999990Z')).toBe('2024-05-06T07:08:10.0000020Z');
    expect(dateTimeAdd('ns', 100, '1969-12-31T23:59:59.9999999Z')).toBe('1970-01-01T00:00:00.0000000Z');
    expect(dateTimeAdd('day', -1, '1970-01-01T00:00:00.0000001Z')).toBe('1969-12-31T00:00:00.0000001Z');
    expect(dateTimeAdd('month', 1, '2023-01-31T00:00:00Z')).toBe('2023-02-28T00:00:00.0000000Z');
    expect(dateTimeAdd('yy', 1, '2024-02-29')).toBe('2025-02-28T00:00:00.0000000Z');
    expect(dateTimeAdd('year', 8000, '2024-01-01T00:00:00Z')).toBeUndefined();
    expect(dateTimeAdd('day', 1e300, '2024-01-01T00:00:00Z')).toBeUndefined();
  });

  it('reads parts, counts boundaries crossed, and builds dates from parts', () => {
    expect(dateTimePart('ns', '2024-05-06T07:08:09.1234567Z')).toBe(123_456_700);
    expect(dateTimePart('mcs', '2024-05-06T07:08:09.1234567Z')).toBe(123_456);
    expect(dateTimePart('hh', '2024-05-06T07:08:09Z')).toBe(7);
    expect(dateTimeDiff('day', '2024-01-01T23:59:59Z', '2024-01-02T00:00:00Z')).toBe(1);
    expect(dateTimeDiff('year', '2024-12-31T00:00:00Z', '2023-01-01T00:00:00Z')).toBe(-1);
    expect(dateTimeDiff('hour', '1969-12-31T23:30:00Z', '1970-01-01T00:30:00Z')).toBe(1);
    expect(dateTimeDiff('ns', '2024-01-01T00:00:00.0000000Z', '2024-01-01T00:00:00.0000003Z')).toBe(300);
    expect(dateTimeFromParts(2024, 12, 31, 23, 59, 59, 9_999_999)).toBe('2024-12-31T23:59:59.9999999Z');
    expect(dateTimeFromParts(2024, 13, 1)).toBeUndefined();
    expect(timestampToDateTime(-1)).toBe('1969-12-31T23:59:59.9990000Z');
  });

  it('gives undefined for what is not a date, a part or a number', () => {
    expect(dateTimePart('week', '2024-01-01T00:00:00Z')).toBeUndefined();
    expect(dateTimePart('day', '2024-02-30T00:00:00Z')).toBeUndefined();
    expect(dateTimeAdd('day', '1', '2024-01-01T00:00:00Z')).toBeUndefined();
    expect(dateTimeDiff('day', 17, '2024-01-01T00:00:00Z')).toBeUndefined();
    expect(timestampToDateTime(Number.MAX_VALUE)).toBeUndefined();
  });

  it('converts to and from .NET ticks and bins dates from an origin', () => {
    expect(dateTimeToTicks('0001-01-01T00:00:00.0000001Z')).toBe(1);
    expect(dateTimeToTicks('1970-01-01T00:00:00.0000000Z')).toBe(621_355_968_000_000_000);
    expect(ticksToDateTime(621_355_968_000_000_000)).toBe('1970-01-01T00:00:00.0000000Z');
    expect(ticksToDateTime(1)).toBe('0001-01-01T00:00:00.0000001Z');
    expect(ticksToDateTime(-5)).toBeUndefined();
    expect(dateTimeBin('2024-05-06T07:08:09.1234567Z', 'hh')).toBe('2024-05-06T07:00:00.0000000Z');
    expect(dateTimeBin('2024-05-06T07:08:09.1234567Z', 'mi', 15)).toBe('2024-05-06T07:00:00.0000000Z');
    expect(dateTimeBin('2024-05-06T07:38:09Z', 'mi', 15)).toBe('2024-05-06T07:30:00.0000000Z');
    expect(dateTimeBin('2024-05-06T07:08:09Z', 'day', 7, '2024-05-01T00:00:00Z')).toBe('2024-05-01T00:00:00.0000000Z');
    expect(dateTimeBin('1969-12-31T23:59:59Z', 'dd')).toBe('1969-12-31T00:00:00.0000000Z');
    expect(dateTimeBin('2024-05-06T07:08:09Z', 'month')).toBeUndefined();
    expect(dateTimeBin('2024-05-06T07:08:09Z', 'hh', 0)).toBeUndefined();
  });
});
