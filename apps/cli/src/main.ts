import 'reflect-metadata';
import { configOrExit, exitOnConfigError, loadConfig } from '@jumbe/config';
import { ApiError } from '@jumbe/contracts';
import { buildProgram } from './program';

/** `npx jumbe …`: operator commands that work on the database directly (CONTRACT §8). */
buildProgram(configOrExit(() => loadConfig()))
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (exitOnConfigError(error)) return;
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${error.message}\n`);
    } else {
      process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    }
    process.exit(1);
  });
