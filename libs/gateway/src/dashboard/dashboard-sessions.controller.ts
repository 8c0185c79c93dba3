import { ApiError } from '@jumbe/contracts';
import { Controller, Delete, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AccountDirectory } from '../auth/account-directory';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import { DashboardSessions } from '../auth/dashboard-sessions';
import type { CustomerContext } from '../auth/principal';
import { presentedKeyHash } from '../auth/presented-key';
import { Customer } from '../auth/customer.decorator';

/**
 * Signing in to the dashboard and out again (CONTRACT §11, README "The dashboard"). A sign-in is
 * a dashboard operation, not an API hit: the key is checked (401, 403 suspended) but not metered.
 */
@Controller('api/v1/dashboard/sessions')
export class DashboardSessionsController {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly directory: AccountDirectory,
    private readonly sessions: DashboardSessions,
  ) {}

  /** Exchanges the API key (`x-api-key`) for a dashboard session token, kept by the tab. */
  @Post()
  @HttpCode(201)
  async signIn(@Req() request: FastifyRequest) {
    const principal = await this.authenticator.authenticateHash(
      presentedKeyHash(request, this.authenticator),
    );
    const access = await this.directory.get(principal.accountId);
    if (access.suspended) {
      throw new ApiError(
        'account_suspended',
        'This account is suspended. Contact the operator of this Jumbe.',
      );
    }
    return {
      message: 'Signed in to the dashboard. Send the token as "Authorization: Bearer <token>".',
      data: await this.sessions.signIn(principal),
    };
  }

  /** Ends the dashboard session whose token the request carries. */
  @Delete('current')
  @UseGuards(CustomerAuthGuard)
  async signOut(@Customer() customer: CustomerContext) {
    if (customer.dashboardSessionId === undefined) {
      throw new ApiError(
        'validation_error',
        'Signing out ends a dashboard session: send its token as "Authorization: Bearer <token>", not an API key.',
        [{ path: '/Authorization', problem: 'a dashboard session token' }],
      );
    }
    await this.sessions.signOut(customer.dashboardSessionId);
    return { message: 'Signed out of the dashboard', data: { signedOut: true } };
  }
}
