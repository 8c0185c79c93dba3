/** What a thrown value says, for a log line or an error of our own. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
