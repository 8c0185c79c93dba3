import { describeInboundMediaContract, MEDIA_TEST_MAX_BYTES } from './support/inbound-media-contract';
import { startAllInOne, startDistributed } from './support/topology';

// Room for the largest test file base64-encoded in a sandbox body.
const env = {
  JUMBE_MEDIA_MAX_BYTES: String(MEDIA_TEST_MAX_BYTES),
  JUMBE_BODY_LIMIT_BYTES: String(256 * 1024),
};

describe('inbound media files, all-in-one (data dir)', () => {
  describeInboundMediaContract(() => startAllInOne(env));
});

// The topology removes its Object Store bucket when it stops.
describe('inbound media files, distributed (2 gateways, 1 worker, JetStream Object Store)', () => {
  describeInboundMediaContract(() => startDistributed(2, env, 1));
});
