import type { JumbeConfig } from '@jumbe/config';
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
  waitForRedisReady,
} from '@jumbe/coordination';
import { OperatorService } from '@jumbe/operator';
import { migrate } from '@jumbe/persistence';
import { Command, InvalidArgumentError } from 'commander';
import { openCliDatabase } from './database-connection';
import { runQuickstart } from './quickstart';

const integer = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function buildProgram(config: JumbeConfig): Command {
  /** Runs one command with the operator service, then closes every connection. */
  const withOperator = async (work: (operator: OperatorService) => Promise<unknown>) => {
    const database = await openCliDatabase(config);
    const invalidations = cliInvalidations(config);
    try {
      await migrate(database.dataSource);
      print(await work(new OperatorService(database.dataSource, invalidations)));
    } finally {
      await invalidations.close();
      await database.close();
    }
  };

  const program = new Command('jumbe')
    .description(
      'Jumbe operator CLI. Uses JUMBE_DATABASE_URL, or the embedded database under JUMBE_DATA_DIR.',
    )
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
      withOperator((operator) => runQuickstart(operator, options.account)),
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
  accounts.command('show <id>').action((id: string) => withOperator((operator) => operator.getAccount(id)));
  accounts
    .command('update <id>')
    .option('--plan <plan>', 'move to another plan')
    .option('--suspend', 'suspend the account')
    .option('--unsuspend', 'lift a suspension')
    .action((id: string, options: { plan?: string; suspend?: boolean; unsuspend?: boolean }) => {
      if (options.suspend && options.unsuspend) throw new Error('choose --suspend or --unsuspend, not both');
      const suspended = options.suspend ? true : options.unsuspend ? false : undefined;
      const input = parseInput(updateAccountSchema, { plan: options.plan, suspended }, 'arguments');
      return withOperator((operator) => operator.updateAccount(id, input));
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create <accountId>')
    .option('--name <name>', 'label for the key')
    .option('--scope <scope>', 'full or read', 'full')
    .action((accountId: string, options: { name?: string; scope: string }) =>
      withOperator((operator) =>
        operator.createKey(accountId, parseInput(createKeySchema, options, 'arguments')),
      ),
    );
  keys
    .command('list <accountId>')
    .action((accountId: string) => withOperator((operator) => operator.listKeys(accountId)));
  keys
    .command('revoke <accountId> <keyId>')
    .action((accountId: string, keyId: string) =>
      withOperator((operator) => operator.revokeKey(accountId, keyId)),
    );

  return program;
}

/**
 * With Redis configured, the CLI tells running gateways to drop cached keys at once; without it
 * (the all-in-one mode keeps its cache in process) cached entries expire within 30 seconds.
 */
function cliInvalidations(
  config: JumbeConfig,
): Pick<InvalidationBus, 'publish'> & { close(): Promise<void> } {
  if (config.redisUrl === null) return { publish: async () => undefined, close: async () => undefined };
  const redis = createRedisClient(config.redisUrl, 'jumbe-cli');
  return {
    publish: async (topic, message) => {
      // Commands fail fast until connected (no offline queue), so wait for the connection.
      await waitForRedisReady(redis, 5_000);
      await redis.publish(invalidationChannel(topic), message);
    },
    close: async () => {
      redis.disconnect();
    },
  };
}
