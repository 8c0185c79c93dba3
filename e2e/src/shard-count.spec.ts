import { ServiceProcess } from '@jumbe/testing';
import { type DistributedTopology, startDistributed } from './support/topology';

/**
 * The shard count is fixed when a deployment is created (JUMBE_SHARD_COUNT, recorded in
 * PostgreSQL by its first process): a process started with another count would route sessions to
 * shards nobody else puts them on, so it refuses to start, saying why in one line.
 */
describe('JUMBE_SHARD_COUNT', () => {
  let topology: DistributedTopology;

  beforeAll(async () => {
    topology = await startDistributed(1, { JUMBE_SHARD_COUNT: '128' });
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('refuses to start a process whose count differs from the deployment’s, in one line', async () => {
    const started = ServiceProcess.start('gateway', { ...topology.env, JUMBE_SHARD_COUNT: '64' });
    const failure = await started.then(
      () => new Error('started'),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(/exited early \(code 1/);
    const output = failure.message.split('--- output ---\n')[1] ?? '';
    const refusals = output.split('\n').filter((line) => line.includes('JUMBE_SHARD_COUNT'));
    expect(refusals).toEqual([
      'configuration error: JUMBE_SHARD_COUNT is 64, but this deployment was created with 128 shards ' +
        'and the count cannot change: start every process with JUMBE_SHARD_COUNT=128',
    ]);
    expect(output).not.toMatch(/"level":60|failed to start/);
  });

  it('starts every process that brings the same count', async () => {
    const gateway = await ServiceProcess.start('gateway', { ...topology.env }, { name: 'gateway-2' });
    try {
      expect((await fetch(`${gateway.url}/api/v1/health`)).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});
