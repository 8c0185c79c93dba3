import { ApiError, type CommandResult, type GroupOperation, inviteLink } from '@jumbe/contracts';
import { GroupActionError, type NetworkGroups } from '@jumbe/network';

/**
 * Carries out one `group` command on the session's groups. The network's refusals that are the
 * caller's to fix (no such group, not an admin, a bad invite code) are answered as their contract
 * error, not as a network failure.
 */
export async function runGroupOperation(
  groups: NetworkGroups,
  operation: GroupOperation,
): Promise<CommandResult<'group'>> {
  try {
    return await carryOut(groups, operation);
  } catch (error) {
    if (error instanceof GroupActionError) throw new ApiError(error.code, error.message);
    throw error;
  }
}

async function carryOut(groups: NetworkGroups, operation: GroupOperation): Promise<CommandResult<'group'>> {
  switch (operation.op) {
    case 'list':
      return groups.list();
    case 'create':
      return groups.create(operation.subject, operation.participants);
    case 'info':
      return groups.info(operation.groupId);
    case 'update': {
      const { op: _op, groupId, ...changes } = operation;
      return groups.update(groupId, changes);
    }
    case 'participants':
      return {
        groupId: operation.groupId,
        action: operation.action,
        results: await groups.changeParticipants(operation.groupId, operation.action, operation.participants),
      };
    case 'invite':
      return invite(operation.groupId, await groups.inviteCode(operation.groupId));
    case 'revoke_invite':
      return invite(operation.groupId, await groups.revokeInvite(operation.groupId));
    case 'join':
      return { groupId: await groups.join(operation.code) };
    case 'leave':
      await groups.leave(operation.groupId);
      return { groupId: operation.groupId, left: true as const };
  }
}

function invite(groupId: string, code: string) {
  return { groupId, code, link: inviteLink(code) };
}
