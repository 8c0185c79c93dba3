import { mediaBucketName } from '@jumbe/contracts';
import { connect } from 'nats';
import { describeInboundMediaContract, MEDIA_TEST_MAX_BYTES } from './support/inbound-media-contract';
import { NATS_URL, startAllInOne, startDistributed } from './support/topology';

// Room for the largest test file base64-encoded in a sandbox body.
const env = {
  JUMBE_MEDIA_MAX_BYTES: String(MEDIA_TEST_MAX_BYTES),
  JUMBE_BODY_LIMIT_BYTES: String(256 * 1024),
};

describe('inbound media files, all-in-one (data dir)', () => {
  describeInboundMediaContract(() => startAllInOne(env));
});

describe('inbound media files, distributed (2 gateways, 1 worker, JetStream Object Store)', () => {
  describeInboundMediaContract(async () => {
    const topology = await startDistributed(2, env, 1);
    return {
      ...topology,
      stop: async () => {
        await topology.stop();
        await deleteMediaBucket(topology.deployment);
      },
    };
  });
});

/** Removes the topology's Object Store bucket (its stream is `OBJ_<bucket>`). */
async function deleteMediaBucket(deployment: string): Promise<void> {
  const connection = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  try {
    const manager = await connection.jetstreamManager();
    await manager.streams.delete(`OBJ_${mediaBucketName(deployment)}`).catch(() => undefined);
  } finally {
    await connection.close();
  }
}
