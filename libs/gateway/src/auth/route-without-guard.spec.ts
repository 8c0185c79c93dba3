import type { FastifyRequest } from 'fastify';
import { customerOf } from './customer.decorator';
import type { CustomerContext } from './principal';

/**
 * A customer route reads its caller from what CustomerAuthGuard set on the request: a route
 * declared without the guard fails loudly instead of running for nobody (or for anybody).
 */
describe('the caller of a customer route', () => {
  it('is what the guard admitted', () => {
    const customer = { principal: { keyId: 'k', accountId: 'a', scope: 'full' } } as CustomerContext;
    expect(customerOf({ customer } as FastifyRequest & { customer?: CustomerContext })).toBe(customer);
  });

  it('is refused on a route the guard did not run on', () => {
    expect(() => customerOf({} as FastifyRequest)).toThrow(
      'Customer() used on a route without CustomerAuthGuard',
    );
  });
});
