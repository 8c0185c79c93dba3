/**
 * The network refused a group action for a reason the caller can act on: the group is unknown
 * (`not_found`), the number is not in it or not an admin there (`forbidden`, as WhatsApp answers),
 * the invite code is invalid or revoked (`not_found`), or the number is already in it (`conflict`).
 */
export class GroupActionError extends Error {
  override readonly name = 'GroupActionError';

  constructor(
    readonly code: 'not_found' | 'forbidden' | 'conflict' | 'validation_error',
    message: string,
  ) {
    super(message);
  }
}
