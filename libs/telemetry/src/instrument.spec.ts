import { observeLeaseLosses, observeShardOwner, observeWebhookPoster, ownedShards } from './instrument';
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

  it('counts a renewal the lease store refuses as a loss, and only that', async () => {
    let answer = true;
    const leases = observeLeaseLosses('webhook-dispatcher', {
      renew: async (_shard: number, _member: string, _token: number, _ttlMs: number) => answer,
      other: () => 'kept',
    });
    expect(await leases.renew(1, 'm', 1, 1000)).toBe(true);
    answer = false;
    expect(await leases.renew(1, 'm', 1, 1000)).toBe(false);
    expect(leases.other()).toBe('kept');
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
