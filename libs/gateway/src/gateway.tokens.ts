/** Nest injection token of the service's `Infrastructure` (libs/platform). */
export const INFRASTRUCTURE = Symbol('INFRASTRUCTURE');
