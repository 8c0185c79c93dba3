export const HEALTH_PROBES = Symbol('HEALTH_PROBES');
