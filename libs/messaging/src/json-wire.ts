/**
 * The bus carries JSON. `undefined` (a handler with nothing to say) travels as an empty body.
 * Both bus implementations encode through here, so the in-process bus copies values exactly as
 * the network would (no shared references, Dates become strings) and bugs show up in both modes.
 */
export function toJsonText(value: unknown): string {
  return value === undefined ? '' : (JSON.stringify(value) ?? '');
}

export function fromJsonText(text: string): unknown {
  return text === '' ? undefined : JSON.parse(text);
}

/** Marks a reply whose body is a handler's error message rather than its return value. */
export const HANDLER_ERROR_HEADER = 'Jumbe-Handler-Error';

export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
