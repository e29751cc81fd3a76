import { tracingTarget } from '../../../src/app/tracing';

/** Which exporters, protocol and endpoint the standard variables select, as the OpenTelemetry specification reads them. */
describe('tracingTarget', () => {
  const none = { tracing: {} };

  it('is off without an endpoint or an exporter named, and with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none whatever else is set', () => {
    expect(tracingTarget(none, {})).toBeUndefined();
    expect(tracingTarget({ tracing: { otlpEndpoint: 'http://c:4318' } }, { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingTarget({ tracing: { otlpEndpoint: 'http://c:4318' } }, { OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingTarget(none, { OTEL_TRACES_EXPORTER: ' None ', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
  });

  it('defaults to http/protobuf: the general endpoint gets /v1/traces, the per-signal one is used as is, the setting wins', () => {
    expect(tracingTarget(none, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toMatchObject({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/protobuf',
      console: false,
      source: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    });
    expect(
      tracingTarget(none, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/x' }),
    ).toMatchObject({ url: 'http://t:9/x' });
    expect(
      tracingTarget({ tracing: { otlpEndpoint: 'http://s:4318' } }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/x' }),
    ).toMatchObject({ url: 'http://s:4318/v1/traces', source: 'tracing.otlpEndpoint' });
  });

  it('grpc uses the endpoint as is (no /v1/traces); the per-signal protocol wins over the general one', () => {
    expect(tracingTarget(none, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' })).toMatchObject({
      url: 'http://c:4317',
      protocol: 'grpc',
    });
    expect(
      tracingTarget(none, {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      }),
    ).toMatchObject({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/json',
    });
  });

  it("OTEL_TRACES_EXPORTER=otlp turns tracing on at the specification's default endpoint; console writes spans out, alone or besides otlp", () => {
    expect(tracingTarget(none, { OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(tracingTarget(none, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatchObject({
      url: 'http://localhost:4317',
      protocol: 'grpc',
    });
    const consoleOnly = tracingTarget(none, { OTEL_TRACES_EXPORTER: 'console' });
    expect(consoleOnly).toMatchObject({ console: true });
    expect(consoleOnly?.url).toBeUndefined();
    expect(tracingTarget(none, { OTEL_TRACES_EXPORTER: 'otlp,console', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject({
      console: true,
      url: 'http://c:4318/v1/traces',
    });
  });

  it('ignores values it does not understand, naming them (the start-up logs a warning), and keeps the defaults', () => {
    const target = tracingTarget(none, {
      OTEL_TRACES_EXPORTER: 'zipkin',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
    });
    expect(target).toMatchObject({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/protobuf',
      ignored: ['OTEL_TRACES_EXPORTER=zipkin', 'OTEL_EXPORTER_OTLP_PROTOCOL=http/xml'],
    });
    expect(tracingTarget(none, { OTEL_TRACES_EXPORTER: 'zipkin' })).toBeUndefined();
  });
});
