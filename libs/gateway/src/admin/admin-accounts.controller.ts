import {
  createAccountSchema,
  type CreateAccountInput,
  createKeySchema,
  type CreateKeyInput,
  updateAccountSchema,
  type UpdateAccountInput,
} from '@jumbe/contracts';
import { billingCycleAt, sessionView } from '@jumbe/domain';
import { AccountAdministration } from '../ports/account-administration';
import { Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiError } from '@jumbe/contracts';
import { orUnavailable } from '../http/dependency-failure';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ValidBody } from '../http/validated-input.decorators';
import { UsageMeter } from '../metering/usage-meter';
import { AccountLookup } from '../ports/account-lookup';
import { SessionCatalogue } from '../ports/session-catalogue';

@Controller('api/v1/admin/accounts')
@UseGuards(AdminTokenGuard)
export class AdminAccountsController {
  constructor(
    private readonly operator: AccountAdministration,
    private readonly meter: UsageMeter,
    private readonly accounts: AccountLookup,
    private readonly sessions: SessionCatalogue,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@ValidBody(createAccountSchema) input: CreateAccountInput) {
    return { message: 'Account created', data: await this.operator.createAccount(input) };
  }

  @Get()
  async list() {
    return { data: await this.operator.listAccounts() };
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    return { data: await this.operator.getAccount(id) };
  }

  /** The account's usage this cycle, as the account itself sees it on `GET /usage`. */
  @Get(':id/usage')
  async usage(@Param('id') id: string) {
    const found = await orUnavailable('database', () => this.accounts.findWithPlan(id));
    if (!found) throw new ApiError('not_found', `No account with id "${id}".`);
    const cycle = billingCycleAt(new Date());
    const [usage, sessions, hitsPerDay] = await Promise.all([
      this.meter.current(id),
      orUnavailable('database', () => this.sessions.countActive(id)),
      this.meter.hitsPerDay(id),
    ]);
    return {
      data: {
        plan: found.plan.name,
        periodStart: cycle.start.toISOString(),
        periodEnd: cycle.end.toISOString(),
        apiHits: usage.apiHits,
        apiHitLimit: found.plan.monthlyApiHits,
        messagesSent: usage.messagesSent,
        sendFailures: usage.sendFailures,
        sessions,
        sessionLimit: found.plan.maxSessions,
        hitsPerDay,
      },
    };
  }

  @Get(':id/sessions')
  async listSessions(@Param('id') id: string) {
    const found = await orUnavailable('database', () => this.accounts.findWithPlan(id));
    if (!found) throw new ApiError('not_found', `No account with id "${id}".`);
    const records = await orUnavailable('database', () => this.sessions.list(id));
    return { data: records.map((record) => sessionView(record)) };
  }

  @Patch(':id')
  async update(@Param('id') id: string, @ValidBody(updateAccountSchema) input: UpdateAccountInput) {
    return { message: 'Account updated', data: await this.operator.updateAccount(id, input) };
  }

  @Post(':id/keys')
  @HttpCode(201)
  async createKey(@Param('id') id: string, @ValidBody(createKeySchema) input: CreateKeyInput) {
    const { data, key } = await this.operator.createKey(id, input);
    return { message: 'API key created. Store it now: it is shown only once.', data, key };
  }

  @Get(':id/keys')
  async listKeys(@Param('id') id: string) {
    return { data: await this.operator.listKeys(id) };
  }

  @Delete(':id/keys/:keyId')
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string) {
    return { message: 'API key revoked', data: await this.operator.revokeKey(id, keyId) };
  }
}
