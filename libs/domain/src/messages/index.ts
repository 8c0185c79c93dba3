export * from './vcard';
