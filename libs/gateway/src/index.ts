export * from './auth/customer-auth.guard';
export * from './auth/principal';
export * from './bootstrap/create-http-app';
export * from './gateway.module';
export * from './http/validated-input.decorators';
export * from './metering/usage-meter';
export * from './ports';
export * from './openapi/openapi-document';
