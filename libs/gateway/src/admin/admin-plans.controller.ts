import {
  createPlanSchema,
  type CreatePlanInput,
  updatePlanSchema,
  type UpdatePlanInput,
} from '@jumbe/contracts';
import { AccountAdministration } from '../ports/account-administration';
import { Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ValidBody } from '../http/validated-input.decorators';

@Controller('api/v1/admin/plans')
@UseGuards(AdminTokenGuard)
export class AdminPlansController {
  constructor(private readonly operator: AccountAdministration) {}

  @Post()
  @HttpCode(201)
  async create(@ValidBody(createPlanSchema) input: CreatePlanInput) {
    return { message: 'Plan created', data: await this.operator.createPlan(input) };
  }

  @Get()
  async list() {
    return { data: await this.operator.listPlans() };
  }

  @Patch(':id')
  async update(@Param('id') id: string, @ValidBody(updatePlanSchema) input: UpdatePlanInput) {
    return { message: 'Plan updated', data: await this.operator.updatePlan(id, input) };
  }
}
