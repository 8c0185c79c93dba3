import { type JumbeConfig, productVersion } from '@jumbe/config';
import {
  createAccountSchema,
  createKeySchema,
  createPlanSchema,
  parseInput,
  updateAccountSchema,
} from '@jumbe/contracts';
import {
  createRedisClient,
  invalidationChannel,
  type InvalidationBus,
  notifyInvalidation,
  waitForRedisReady,
} from '@jumbe/coordination';
import type { OperatorService } from '@jumbe/operator';
import { migrate } from '@jumbe/persistence';

import { Command, InvalidArgumentError } from 'commander';
import type { DataSource } from 'typeorm';
import { addBackupCommands } from './backup-commands';
import { openCliDatabase } from './database-connection';
import { operatorServiceOn } from './operator-service-binding';
import { render } from './output';
import { runQuickstart } from './quickstart';
import { addSecretKeyCommands } from './secret-key-commands';

const integer = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

/** Milliseconds per unit; the keys are exactly the units `duration`'s pattern accepts. */
const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** `90s`, `30m`, `24h`, `7d` or `0` (at once). */
const duration = (value: string): number => {
  const match = /^(\d+)([smhd])$|^0$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a duration such as 30m, 24h or 7d, or 0');
  return match[1] === undefined ? 0 : Number(match[1]) * DURATION_UNITS[match[2]];
};

/** How long a rotated key keeps working: a day, time enough to deploy the new key. */
export const DEFAULT_ROTATION_GRACE = '24h';

export function buildProgram(config: JumbeConfig): Command {
  /** JSON with --json, and whenever stdout is not a terminal (scripts keep working); tables otherwise. */
  const print = (value: unknown) =>
    process.stdout.write(
      render(value, program.opts<{ json?: boolean }>().json === true || !process.stdout.isTTY),
    );

  /** Runs one command with the operator service, then closes every connection. */
  const withOperator = async (work: (operator: OperatorService) => Promise<unknown>) => {
    const database = await openCliDatabase(config);
    const invalidations = cliInvalidations(config, database.dataSource);
    try {
      await migrate(database.dataSource);
      print(await work(operatorServiceOn(database.dataSource, invalidations)));
    } finally {
      await invalidations.close();
      await database.close();
    }
  };

  const program = new Command('jumbe')
    .description(
      'Jumbe operator CLI. Uses JUMBE_DATABASE_URL, or the embedded database under JUMBE_DATA_DIR.',
    )
    .version(productVersion(), '-V, --version', 'print the Jumbe version')
    .option('--json', 'print JSON (the default when stdout is not a terminal)')
    .showHelpAfterError();

  program
    .command('migrate')
    .description('apply pending database migrations (safe to run from several places at once)')
    .action(async () => {
      const database = await openCliDatabase(config);
      try {
        print(await migrate(database.dataSource));
      } finally {
        await database.close();
      }
    });

  program
    .command('quickstart')
    .description('create a plan, an account and an API key to try Jumbe with')
    .option('--account <name>', 'account name', 'demo')
    .action((options: { account: string }) =>
      withOperator((operator) => runQuickstart(operator, options.account, config)),
    );

  const plans = program.command('plans').description('manage plans');
  plans
    .command('create <name>')
    .requiredOption('--monthly-api-hits <n>', 'API hits per calendar month', integer)
    .requiredOption('--max-sessions <n>', 'active sessions at once', integer)
    .action((name: string, options: { monthlyApiHits: number; maxSessions: number }) =>
      withOperator((operator) =>
        operator.createPlan(parseInput(createPlanSchema, { name, ...options }, 'arguments')),
      ),
    );
  plans
    .command('update <plan>')
    .description("change a plan's limits (by name or id); its accounts see them at once")
    .option('--monthly-api-hits <n>', 'API hits per calendar month', integer)
    .option('--max-sessions <n>', 'active sessions at once', integer)
    .action((ref: string, options: { monthlyApiHits?: number; maxSessions?: number }) => {
      if (options.monthlyApiHits === undefined && options.maxSessions === undefined) {
        throw new InvalidArgumentError('nothing to change: give --monthly-api-hits and/or --max-sessions');
      }
      if (options.maxSessions === 0 || options.monthlyApiHits === 0) {
        throw new InvalidArgumentError('limits must be at least 1');
      }
      return withOperator((operator) => operator.updatePlan(ref, options));
    });
  plans.command('list').action(() => withOperator((operator) => operator.listPlans()));

  const accounts = program.command('accounts').description('manage customer accounts');
  accounts
    .command('create <name>')
    .requiredOption('--plan <plan>', 'plan name')
    .action((name: string, options: { plan: string }) =>
      withOperator((operator) =>
        operator.createAccount(parseInput(createAccountSchema, { name, plan: options.plan }, 'arguments')),
      ),
    );
  accounts.command('list').action(() => withOperator((operator) => operator.listAccounts()));
  accounts
    .command('show <account>')
    .description('one account, by id or name')
    .action((ref: string) => withOperator((operator) => operator.findAccount(ref)));
  accounts
    .command('update <account>')
    .description('change an account (by id or name)')
    .option('--plan <plan>', 'move to another plan')
    .option('--suspend', 'suspend the account')
    .option('--unsuspend', 'lift a suspension')
    .action((id: string, options: { plan?: string; suspend?: boolean; unsuspend?: boolean }) => {
      if (options.suspend && options.unsuspend) throw new Error('choose --suspend or --unsuspend, not both');
      const suspended = options.suspend ? true : options.unsuspend ? false : undefined;
      const input = parseInput(updateAccountSchema, { plan: options.plan, suspended }, 'arguments');
      return withOperator(async (operator) =>
        operator.updateAccount((await operator.findAccount(id)).id, input),
      );
    });

  accounts
    .command('report <account>')
    .description("an account's usage this month, its sessions and its recent failed sends")
    .option('--failures <n>', 'how many recent failed sends to show', integer, 10)
    .action((ref: string, options: { failures: number }) =>
      withOperator((operator) => operator.accountReport(ref, Math.min(Math.max(options.failures, 1), 100))),
    );

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create <account>')
    .description('a new key for an account (by id or name); the key is printed only now')
    .option('--name <name>', 'label for the key')
    .option('--scope <scope>', 'full or read', 'full')
    .action((ref: string, options: { name?: string; scope: string }) => {
      const input = parseInput(createKeySchema, options, 'arguments');
      return withOperator(async (operator) =>
        operator.createKey((await operator.findAccount(ref)).id, input),
      );
    });
  keys
    .command('list <account>')
    .description("an account's keys (by id or name), never the key material")
    .action((ref: string) =>
      withOperator(async (operator) => operator.listKeys((await operator.findAccount(ref)).id)),
    );
  keys
    .command('revoke <account> <keyId>')
    .action((ref: string, keyId: string) =>
      withOperator(async (operator) => operator.revokeKey((await operator.findAccount(ref)).id, keyId)),
    );

  keys
    .command('rotate <account> <keyId>')
    .description(
      `a new key replacing keyId (same name and scope); the old key keeps working for the grace period, then is revoked`,
    )
    .option(
      '--grace <duration>',
      'how long the old key keeps working (e.g. 30m, 24h, 7d; 0 = at once)',
      DEFAULT_ROTATION_GRACE,
    )
    .action((ref: string, keyId: string, options: { grace: string }) => {
      const graceMs = duration(options.grace);
      return withOperator(async (operator) =>
        operator.rotateKey((await operator.findAccount(ref)).id, keyId, graceMs),
      );
    });

  addBackupCommands(program, config, print);
  addSecretKeyCommands(program, config, print);

  return program;
}

/**
 * The CLI announces access changes so running processes drop cached copies at once: through
 * PostgreSQL NOTIFY (heard by an all-in-one on the same database, which has no Redis) and, with
 * Redis configured, on Redis as the admin API does (heard by distributed gateways).
 */
function cliInvalidations(
  config: JumbeConfig,
  dataSource: DataSource,
): Pick<InvalidationBus, 'publish'> & { close(): Promise<void> } {
  const redis = config.redisUrl === null ? null : createRedisClient(config.redisUrl, 'jumbe-cli');
  return {
    publish: async (topic, message) => {
      await notifyInvalidation((sql, parameters) => dataSource.query(sql, parameters), topic, message);
      if (redis === null) return;
      // Commands fail fast until connected (no offline queue), so wait for the connection.
      await waitForRedisReady(redis, 5_000);
      await redis.publish(invalidationChannel(topic), message);
    },
    close: async () => {
      redis?.disconnect();
    },
  };
}
