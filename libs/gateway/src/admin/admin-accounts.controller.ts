import {
  createAccountSchema,
  type CreateAccountInput,
  createKeySchema,
  type CreateKeyInput,
  updateAccountSchema,
  type UpdateAccountInput,
} from '@jumbe/contracts';
import { OperatorService } from '@jumbe/operator';
import { Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ValidBody } from '../http/validated-input.decorators';

@Controller('api/v1/admin/accounts')
@UseGuards(AdminTokenGuard)
export class AdminAccountsController {
  constructor(private readonly operator: OperatorService) {}

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
