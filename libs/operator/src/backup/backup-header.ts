import { z } from 'zod';

/** What a backup file says about itself on its first line (the rest is table data). */
export const backupHeaderSchema = z.object({
  format: z.literal('jumbe-backup'),
  /** Version of this file layout (not of Jumbe). */
  version: z.literal(1),
  createdAt: z.string(),
  /** The Jumbe release that wrote it. */
  productVersion: z.string(),
  /** Migrations applied to the database it was taken from, oldest first. */
  migrations: z.array(z.string()),
  /**
   * Tells which JUMBE_SECRET_KEY sealed the credentials and webhook secrets in it, without
   * revealing the key (see `secretKeyFingerprint`); null when the key was not known.
   */
  secretKeyFingerprint: z.string().nullable(),
  /** The tables that follow, in the order they follow (parents before the tables referencing them). */
  tables: z.array(z.object({ name: z.string(), columns: z.array(z.string()), rows: z.number() })),
});

export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** Ends each table's rows in the file: the end-of-data marker of PostgreSQL's COPY text format. */
export const END_OF_TABLE = '\\.';
