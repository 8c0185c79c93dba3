import { type JumbeConfig, productVersion } from '@jumbe/config';
import { backupDatabase, restoreDatabase } from '@jumbe/operator';
import { readRunningEmbedded, schemaMigrations } from '@jumbe/persistence';
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { openCliDatabase } from './database-connection';
import { secretKeyAtHand } from './secret-key-at-hand';

/** `jumbe backup FILE` and `jumbe restore FILE` (README "Backups"). */
export function addBackupCommands(program: Command, config: JumbeConfig, print: (value: unknown) => void) {
  program
    .command('backup <file>')
    .description(
      'write a consistent backup of the database to FILE, while Jumbe runs (gzip; keep it private)',
    )
    .action(async (file: string) => {
      const database = await openCliDatabase(config);
      try {
        print(
          await backupDatabase({
            url: database.url,
            file: resolve(file),
            secretKey: await secretKeyAtHand(config),
            productVersion: productVersion(),
          }),
        );
      } finally {
        await database.close();
      }
    });

  program
    .command('restore <file>')
    .description('load a backup into an empty database (a fresh data directory); stop Jumbe first')
    .option('--force', "replace the database's data, and accept a backup made with another secret key")
    .action(async (file: string, options: { force?: boolean }) => {
      if (config.databaseUrl === null && (await readRunningEmbedded(config.dataDir)) !== null) {
        throw new Error(`Jumbe is running on ${config.dataDir}: stop it before restoring into it`);
      }
      const database = await openCliDatabase(config);
      try {
        const summary = await restoreDatabase({
          url: database.url,
          file: resolve(file),
          secretKey: await secretKeyAtHand(config),
          force: options.force === true,
          migrations: schemaMigrations,
        });
        if (summary.secretKey === 'missing') process.stderr.write(missingKeyWarning(config));
        print(summary);
      } finally {
        await database.close();
      }
    });
}

const missingKeyWarning = (config: JumbeConfig) =>
  `warning: no secret key here. Before starting Jumbe, copy secret.key from the backed-up data directory to ${resolve(config.dataDir, 'secret.key')} (or set the original JUMBE_SECRET_KEY); without it the restored WhatsApp sessions must be linked again and webhook secrets set again.\n`;
