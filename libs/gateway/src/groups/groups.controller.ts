import {
  type GroupOperation,
  groupCreateSchema,
  groupIdField,
  groupJoinSchema,
  groupParticipantsSchema,
  groupSessionBodySchema,
  groupUpdateSchema,
  parseInput,
  sessionQuerySchema,
} from '@jumbe/contracts';
import { Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { SessionCommandClient } from '../sessions/session-command.client';

const groupPathSchema = z.strictObject({ groupId: groupIdField });

/**
 * Groups of the session's number (extension, CONTRACT §11): each route is one `group` command to
 * the session's worker, which asks the network. They send no message and count none.
 */
@Controller('api/v1/groups')
@UseGuards(CustomerAuthGuard)
export class GroupsController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Get()
  async list(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return { data: await this.run(customer, query.sessionId, { op: 'list' }) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Customer() customer: CustomerContext,
    @ValidBody(groupCreateSchema) body: z.output<typeof groupCreateSchema>,
  ) {
    const { sessionId, subject, participants } = body;
    const data = await this.run(customer, sessionId, { op: 'create', subject, participants });
    return { message: 'Group created', data };
  }

  @Post('join')
  @HttpCode(200)
  async join(
    @Customer() customer: CustomerContext,
    @ValidBody(groupJoinSchema) body: z.output<typeof groupJoinSchema>,
  ) {
    const data = await this.run(customer, body.sessionId, { op: 'join', code: body.code });
    return { message: 'Joined the group', data };
  }

  @Get(':groupId')
  async info(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return { data: await this.run(customer, query.sessionId, { op: 'info', groupId: groupIdOf(params) }) };
  }

  @Patch(':groupId')
  async update(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidBody(groupUpdateSchema) body: z.output<typeof groupUpdateSchema>,
  ) {
    const { sessionId, ...changes } = body;
    const data = await this.run(customer, sessionId, {
      op: 'update',
      groupId: groupIdOf(params),
      ...changes,
    });
    return { message: 'Group updated', data };
  }

  @Post(':groupId/participants')
  @HttpCode(200)
  async participants(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidBody(groupParticipantsSchema) body: z.output<typeof groupParticipantsSchema>,
  ) {
    const { sessionId, action, participants } = body;
    const groupId = groupIdOf(params);
    const data = await this.run(customer, sessionId, { op: 'participants', groupId, action, participants });
    return { message: 'Participants updated (see each result)', data };
  }

  @Get(':groupId/invite')
  async invite(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return { data: await this.run(customer, query.sessionId, { op: 'invite', groupId: groupIdOf(params) }) };
  }

  @Post(':groupId/invite/revoke')
  @HttpCode(200)
  async revokeInvite(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidBody(groupSessionBodySchema) body: z.output<typeof groupSessionBodySchema>,
  ) {
    const data = await this.run(customer, body.sessionId, {
      op: 'revoke_invite',
      groupId: groupIdOf(params),
    });
    return { message: 'Invite link revoked; the new one is in data', data };
  }

  @Post(':groupId/leave')
  @HttpCode(200)
  async leave(
    @Customer() customer: CustomerContext,
    @Param() params: unknown,
    @ValidBody(groupSessionBodySchema) body: z.output<typeof groupSessionBodySchema>,
  ) {
    const data = await this.run(customer, body.sessionId, { op: 'leave', groupId: groupIdOf(params) });
    return { message: 'Left the group', data };
  }

  private run(customer: CustomerContext, sessionId: string, operation: GroupOperation) {
    return this.commands.send(
      { type: 'group', accountId: customer.access.accountId, sessionId, operation },
      customer.requestId,
    );
  }
}

function groupIdOf(params: unknown): string {
  return parseInput(groupPathSchema, params, 'path').groupId;
}
