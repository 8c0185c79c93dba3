/** An account was pointed at a plan id that does not exist. */
export class UnknownPlanError extends Error {
  constructor(readonly planId: string) {
    super(`No plan has id "${planId}"`);
    this.name = 'UnknownPlanError';
  }
}
