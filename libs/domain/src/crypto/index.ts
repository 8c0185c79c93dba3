export * from './secret-box';
export * from './secret-purposes';
export * from './sealed-value-bindings';
