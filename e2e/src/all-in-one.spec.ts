import { describeGatewayContract } from './support/gateway-contract';
import { startAllInOne } from './support/topology';

describe('all-in-one (npm start: embedded PostgreSQL, in-process bus, in-memory coordination)', () => {
  describeGatewayContract(() => startAllInOne());
});
