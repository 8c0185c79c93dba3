/** The database schema's migrations as this release ships them (a restore rebuilds a backup's schema with them). */
export interface SchemaMigrations {
  /** Every migration's name, oldest first. */
  readonly names: readonly string[];
  /**
   * Applies those of `names` the database at `url` lacks, on a connection of its own, and answers
   * the names it applied.
   */
  applyTo(url: string, names: readonly string[]): Promise<string[]>;
}
