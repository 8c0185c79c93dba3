import { ApiError, createKeySchema, type CreateKeyInput } from '@jumbe/contracts';
import { AccountAdministration } from '../ports/account-administration';
import { Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody } from '../http/validated-input.decorators';

/**
 * The account's own API keys (`/keys`), so a customer manages keys without the operator. Only a
 * `full` key may even list them: a read key must not learn which other keys exist.
 */
@Controller('api/v1/keys')
@UseGuards(CustomerAuthGuard)
export class KeysController {
  constructor(private readonly operator: AccountAdministration) {}

  @Get()
  async list(@Customer() customer: CustomerContext) {
    requireFullScope(customer);
    return { data: await this.operator.listKeys(customer.access.accountId) };
  }

  @Post()
  @HttpCode(201)
  async create(@Customer() customer: CustomerContext, @ValidBody(createKeySchema) input: CreateKeyInput) {
    requireFullScope(customer);
    const { data, key } = await this.operator.createKey(customer.access.accountId, input);
    return { message: 'API key created. Store it now: it is shown only once.', data, key };
  }

  @Delete(':id')
  async revoke(@Customer() customer: CustomerContext, @Param('id') id: string) {
    requireFullScope(customer);
    return { message: 'API key revoked', data: await this.operator.revokeKey(customer.access.accountId, id) };
  }
}

function requireFullScope(customer: CustomerContext): void {
  if (customer.principal.scope !== 'full') {
    throw new ApiError(
      'forbidden',
      `This key has the "${customer.principal.scope}" scope; managing API keys needs a key with the "full" scope.`,
    );
  }
}
