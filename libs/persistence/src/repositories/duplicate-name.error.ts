/** A plan with this name already exists (names are how operators refer to plans). */
export class DuplicateNameError extends Error {
  constructor(readonly duplicateName: string) {
    super(`A plan named "${duplicateName}" already exists`);
    this.name = 'DuplicateNameError';
  }
}
