import type { JumbeConfig } from '@jumbe/config';
import { rotateSecretKey } from '@jumbe/operator';
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { openCliDatabase } from './database-connection';
import { secretKeyAtHand } from './secret-key-at-hand';

/** `jumbe secret-key rotate` (docs/operations.md "Rotating JUMBE_SECRET_KEY"). */
export function addSecretKeyCommands(program: Command, config: JumbeConfig, print: (value: unknown) => void) {
  program
    .command('secret-key')
    .description('manage JUMBE_SECRET_KEY, which encrypts credentials and webhook secrets at rest')
    .command('rotate')
    .description(
      're-encrypt every stored secret with a new key in one transaction (stop Jumbe first; no number is relinked)',
    )
    .option(
      '--new-key-file <file>',
      'the new key (at least 32 characters); the all-in-one generates one when omitted',
    )
    .option('--force', 'rotate even though Jumbe services are connected to the database')
    .action(async (options: { newKeyFile?: string; force?: boolean }) => {
      const currentKey = await secretKeyAtHand(config);
      if (currentKey === null) {
        throw new Error(
          `no current key: set JUMBE_SECRET_KEY, or point JUMBE_DATA_DIR at the data directory`,
        );
      }
      // The all-in-one's generated key lives in the data dir: the rotation replaces that file too.
      const keyFile = config.secretKey === null ? resolve(config.dataDir, 'secret.key') : null;
      if (options.newKeyFile === undefined && keyFile === null) {
        throw new Error('JUMBE_SECRET_KEY is set: give the new key with --new-key-file');
      }
      const newKey =
        options.newKeyFile === undefined
          ? randomBytes(32).toString('base64url')
          : (await readFile(options.newKeyFile, 'utf8')).trim();
      // Written before anything changes, so the new key is never lost with the data sealed under it.
      const pending = keyFile === null ? null : `${keyFile}.next`;
      if (pending !== null) await writeFile(pending, `${newKey}\n`, { mode: 0o600 });

      const database = await openCliDatabase(config);
      let summary;
      try {
        summary = await rotateSecretKey({
          url: database.url,
          currentKey,
          newKey,
          force: options.force === true,
        });
      } catch (error) {
        if (pending !== null) await rm(pending, { force: true });
        throw error;
      } finally {
        await database.close();
      }
      if (keyFile !== null && pending !== null) {
        await rename(keyFile, `${keyFile}.previous`);
        await rename(pending, keyFile);
      }
      print({
        ...summary,
        next:
          keyFile === null
            ? 'set JUMBE_SECRET_KEY to the new key everywhere, then start the services'
            : `${keyFile} holds the new key (the old one is in ${join(config.dataDir, 'secret.key.previous')}); start Jumbe`,
      });
    });
}
