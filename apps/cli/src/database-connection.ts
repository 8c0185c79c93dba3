import type { JumbeConfig } from '@jumbe/config';
import { createDataSource, EmbeddedDatabase, readRunningEmbedded } from '@jumbe/persistence';
import type { DataSource } from 'typeorm';

export interface CliDatabase {
  /** The connection string, for work that needs its own connection (backups). */
  url: string;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * The CLI works on the database directly: JUMBE_DATABASE_URL when set; otherwise the embedded
 * PostgreSQL of a running `npm start`; otherwise it starts the embedded one itself for the command.
 */
export async function openCliDatabase(config: JumbeConfig): Promise<CliDatabase> {
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (url === null) {
    url = (await readRunningEmbedded(config.dataDir))?.url ?? null;
  }
  if (url === null) {
    embedded = await EmbeddedDatabase.start({
      dataDir: config.dataDir,
      log: (line: string) => process.stderr.write(`${line}\n`),
    });
    url = embedded.url;
  }
  const dataSource = createDataSource(url, { applicationName: 'jumbe-cli', poolSize: 2 });
  await dataSource.initialize();
  return {
    url,
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await embedded?.stop();
    },
  };
}
