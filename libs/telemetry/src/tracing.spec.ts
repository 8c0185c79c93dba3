import { tracingRequested } from './tracing';

describe('tracing switch', () => {
  it('is off by default, and on only when an OTLP endpoint or a trace exporter is named', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
  });

  it('stays off when told so, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('loads the SDK only when tracing is requested', () => {
    const started: Array<string | undefined> = [];
    jest.isolateModules(() => {
      jest.doMock('./tracing-sdk', () => ({
        startTracingSdk: (name: string | undefined) => started.push(name),
      }));
      const isolated = jest.requireActual<typeof import('./tracing')>('./tracing');
      expect(isolated.startTracing('jumbe-gateway', {})).toBe(false);
      expect(started).toEqual([]);
      expect(isolated.startTracing('jumbe-gateway', { OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
      expect(
        isolated.startTracing('jumbe-gateway', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'mine' }),
      ).toBe(true);
    });
    // The service's own name unless OTEL_SERVICE_NAME gives one (the SDK then reads it).
    expect(started).toEqual(['jumbe-gateway', undefined]);
  });
});
