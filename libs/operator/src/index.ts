export * from './operator.service';
export * from './views';
export * from './ports';
export { backupDatabase, type BackupOptions, type BackupSummary } from './backup/database-backup';
export {
  restoreDatabase,
  type RestoreOptions,
  type RestoreSummary,
  type SecretKeyCheck,
} from './backup/database-restore';
export {
  rotateSecretKey,
  type SecretKeyRotationOptions,
  type SecretKeyRotationSummary,
} from './secret-key/secret-key-rotation';
