// `npm run bench [scenario]`: runs one benchmark scenario (default: send-text). Each scenario is a
// module that runs itself when imported; add one with a line in the table below.
const SCENARIOS = {
  'send-text': './send-text.bench.mjs',
  takeover: './takeover.bench.mjs',
  shards: './shards.bench.mjs',
  'scale-out': './scale-out.bench.mjs',
  quota: './quota.bench.mjs',
  inbound: './inbound.bench.mjs',
  sessions: './sessions.bench.mjs',
  emulator: './emulator-sessions.bench.mjs',
  metrics: './metrics.bench.mjs',
  capacity: './capacity.bench.mjs',
  pipeline: './pipeline.bench.mjs',
};

const name = process.argv[2] ?? 'send-text';
const scenario = SCENARIOS[name];
if (!scenario) {
  console.error(`unknown scenario "${name}"; one of: ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}
await import(scenario);
