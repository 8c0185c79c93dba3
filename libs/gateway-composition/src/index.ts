export * from './gateway-bindings';
