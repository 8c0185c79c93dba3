import { ApiError } from '@jumbe/contracts';
import { Controller, Delete, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { type AdminRequest, AdminTokenGuard } from '../auth/admin-token.guard';
import { OperatorSessions } from '../auth/operator-sessions';

/**
 * The operator's dashboard sign-in and sign-out (CONTRACT §11, README "The dashboard"): the admin
 * token is sent once, for a session token the tab keeps instead.
 */
@Controller('api/v1/admin/dashboard-sessions')
@UseGuards(AdminTokenGuard)
export class AdminDashboardSessionsController {
  constructor(private readonly sessions: OperatorSessions) {}

  /** Exchanges the admin token for an operator session token. */
  @Post()
  @HttpCode(201)
  async signIn(@Req() request: AdminRequest) {
    if (request.operatorSessionId !== undefined) {
      throw new ApiError(
        'validation_error',
        'Sign in with the admin token itself, not with a session token.',
        [{ path: '/Authorization', problem: 'the admin token' }],
      );
    }
    return {
      message:
        'Signed in to the dashboard as the operator. Send the token as "Authorization: Bearer <token>".',
      data: await this.sessions.signIn(),
    };
  }

  /** Ends the operator session whose token the request carries. */
  @Delete('current')
  async signOut(@Req() request: AdminRequest) {
    if (request.operatorSessionId === undefined) {
      throw new ApiError(
        'validation_error',
        'Signing out ends an operator session: send its token as "Authorization: Bearer <token>", not the admin token.',
        [{ path: '/Authorization', problem: 'an operator session token' }],
      );
    }
    await this.sessions.signOut(request.operatorSessionId);
    return { message: 'Signed out of the dashboard', data: { signedOut: true } };
  }
}
