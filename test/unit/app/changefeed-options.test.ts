import { changefeedOptions } from '../../../src/app/wiring/pipeline';
import { loadConfig } from '../../../src/config/load-config';
import { createLogger } from '../../../src/logging/logger';

const logger = createLogger({ level: 'error', format: 'json' });

function optionsFor(env: Record<string, string>) {
  return changefeedOptions(loadConfig({ env }), 'me#1', logger);
}

describe('changefeedOptions', () => {
  it('passes a start time as the { time } the change feed processor takes, not a bare Date', () => {
    const options = optionsFor({ OPSTREAM_CHANGEFEED_START_FROM: '2026-11-30T10:00:00Z' });
    expect(options.startFrom).toEqual({ time: new Date('2026-11-30T10:00:00Z') });
  });

  it.each(['beginning', 'now'])('passes %s through', (startFrom) => {
    expect(optionsFor({ OPSTREAM_CHANGEFEED_START_FROM: startFrom }).startFrom).toBe(startFrom);
  });

  it('refuses a start that is not a time with a hint at the forms it takes', () => {
    expect(() => optionsFor({ OPSTREAM_CHANGEFEED_START_FROM: '2026-11-30Tnoon' })).toThrow(
      'setting changefeed.startFrom ("2026-11-30Tnoon") is not a time',
    );
  });

  it('leaves the start out when none is configured, and names the processor and instance', () => {
    const options = optionsFor({});
    expect(options).not.toHaveProperty('startFrom');
    expect(options).toMatchObject({ processorName: 'opstream', instanceName: 'me#1' });
  });

  it('polls fast for a while after a change by default, and leaves that to the hints when they are on', () => {
    expect(optionsFor({})).toMatchObject({ maxPollDelayMs: 1_000, activeWindowMs: 10_000, activePollDelayMs: 100 });
    const hinted = optionsFor({
      OPSTREAM_SERVICE_BUS_CONNECTION_STRING: 'Endpoint=sb://127.0.0.1/;SharedAccessKeyName=k;SharedAccessKey=s',
      OPSTREAM_SERVICE_BUS_HINTS: 'true',
    });
    expect(hinted).toMatchObject({ maxPollDelayMs: 5_000, activeWindowMs: 0 });
  });
});
