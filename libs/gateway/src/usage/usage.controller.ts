import { Controller, Get, UseGuards } from '@nestjs/common';
import { orUnavailable } from '../http/dependency-failure';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { UsageMeter } from '../metering/usage-meter';
import { SessionCatalogue } from '../ports/session-catalogue';

/** `GET /usage` (CONTRACT §3 extension): the account's plan, cycle and counters. */
@Controller('api/v1/usage')
@UseGuards(CustomerAuthGuard)
export class UsageController {
  constructor(
    private readonly meter: UsageMeter,
    private readonly sessions: SessionCatalogue,
  ) {}

  @Get()
  async usage(@Customer() customer: CustomerContext) {
    const { access, cycle } = customer;
    const [usage, sessions, hitsPerDay] = await Promise.all([
      this.meter.current(access.accountId),
      orUnavailable('database', () => this.sessions.countActive(access.accountId)),
      this.meter.hitsPerDay(access.accountId),
    ]);
    return {
      data: {
        plan: access.plan.name,
        periodStart: cycle.start.toISOString(),
        periodEnd: cycle.end.toISOString(),
        apiHits: usage.apiHits,
        apiHitLimit: access.plan.monthlyApiHits,
        messagesSent: usage.messagesSent,
        sendFailures: usage.sendFailures,
        sessions,
        sessionLimit: access.plan.maxSessions,
        hitsPerDay,
      },
    };
  }
}
