// Kept here for existing importers; it lives in @jumbe/config so the CLI starts without the platform.
export { productVersion } from '@jumbe/config';
