// main.ts's first import: the instrumentations must patch http, pg and ioredis before any
// module requires them. Does nothing (loads no SDK) unless OTEL_* variables switch tracing on.
import { startTracing } from '@jumbe/telemetry/tracing';

startTracing('jumbe-all-in-one');
