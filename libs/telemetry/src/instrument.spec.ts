import { observeShardOwner, observeWebhookPoster, ownedShards } from './instrument';
import { telemetry } from './telemetry';

async function sample(name: string, labels: string): Promise<number | undefined> {
  const text = await telemetry().registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('instrumentation wrappers', () => {
  it('counts shards owned and acquisitions, and forgets dropped shards', async () => {
    const adopted: number[] = [];
    const owner = observeShardOwner('session-worker', {
      adopt: async (shard: number, _token: number) => void adopted.push(shard),
      drop: async (_shard: number) => undefined,
    });
    await owner.adopt(3, 1);
    await owner.adopt(4, 1);
    await owner.drop(3);
    await owner.drop(3);
    expect(adopted).toEqual([3, 4]);
    expect([...ownedShards('session-worker')]).toEqual([4]);
    expect(await sample('jumbe_shards_owned', 'role="session-worker"')).toBe(1);
    expect(await sample('jumbe_shard_lease_acquisitions_total', 'role="session-worker"')).toBe(2);
  });

  it('counts a shard whose lease was lost as a loss, and a shard given up on purpose not', async () => {
    const told: number[] = [];
    const owner = observeShardOwner('webhook-dispatcher', {
      adopt: async (_shard: number, _token: number) => undefined,
      drop: async (_shard: number) => undefined,
      lost: (shard: number) => void told.push(shard),
    });
    await owner.adopt(1, 1);
    await owner.adopt(2, 1);
    await owner.drop(1);
    owner.lost?.(2);
    await owner.drop(2);
    expect(told).toEqual([2]);
    expect(await sample('jumbe_shard_lease_losses_total', 'role="webhook-dispatcher"')).toBe(1);
  });

  it('counts deliveries by the outcome of their record, with their duration', async () => {
    const poster = observeWebhookPoster({
      post: async (delivery: { payload: { status: string } }) => ({
        status: delivery.payload.status,
        durationMs: 250,
      }),
    });
    await poster.post({ payload: { status: 'success' } });
    await poster.post({ payload: { status: 'failed' } });
    await poster.post({ payload: { status: 'failed' } });
    expect(await sample('jumbe_webhook_deliveries_total', 'outcome="failed"')).toBe(2);
    expect(await sample('jumbe_webhook_delivery_duration_seconds_sum', 'outcome="success"')).toBe(0.25);
  });
});
