// The waiting helpers live in @jumbe/testing; re-exported for the specs that import them from here.
export { delay, eventually, failureOf } from '@jumbe/testing';
