const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a uuid in its canonical text form. Ids arrive from URLs and request bodies;
 * checking first lets a malformed id read as "not found" instead of a PostgreSQL
 * `invalid input syntax for type uuid` error.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
