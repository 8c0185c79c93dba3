/**
 * The database was migrated by a newer release of Jumbe (it records migrations this code does not
 * have). Running against it could corrupt data this code does not understand, so we stop.
 */
export class SchemaTooNewError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `The database schema is newer than this release of Jumbe (unknown migrations: ${unknownMigrations.join(', ')}). ` +
        'Upgrade Jumbe, or restore a backup taken before the upgrade.',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The database lacks migrations this code needs, and this process is not the one that migrates. */
export class SchemaBehindError extends Error {
  constructor(readonly pendingMigrations: string[]) {
    super(
      `The database schema is behind this release of Jumbe (pending migrations: ${pendingMigrations.join(', ')}). ` +
        'Run the migrations first.',
    );
    this.name = 'SchemaBehindError';
  }
}
