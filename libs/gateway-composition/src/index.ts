export * from './gateway-bindings';
export * from './gateway-infrastructure';
