import { describeGatewayContract } from './support/gateway-contract';
import { describeSessionContract } from './support/session-contract';
import { startAllInOne } from './support/topology';

describe('all-in-one (npm start: embedded PostgreSQL, in-process bus, in-memory coordination)', () => {
  describe('gateway', () => describeGatewayContract(() => startAllInOne()));
  describe('sessions and messages on the sandbox', () => describeSessionContract(() => startAllInOne()));
});
