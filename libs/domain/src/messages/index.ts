export * from './vcard';
export * from './change-window';
