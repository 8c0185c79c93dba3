import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../data-source';
import { AccountRepository } from '../account.repository';
import { PlanRepository } from '../plan.repository';

/** A new account on its own plan (plan names are unique, so each gets a random one). */
export async function createAccount(dataSource: DataSource, maxSessions = 5): Promise<string> {
  const plan = await new PlanRepository(dataSource).create({
    name: `plan-${randomUUID()}`,
    monthlyApiHits: 1_000,
    maxSessions,
  });
  return (await new AccountRepository(dataSource).create({ name: 'Test', planId: plan.id })).id;
}

/**
 * `count` more DataSources (one connection each) on the same database, as separate processes
 * (gateways, workers) would have. The caller destroys them with `closeAll`.
 */
export async function openExtraDataSources(url: string, count: number): Promise<DataSource[]> {
  const sources = Array.from({ length: count }, (_, index) =>
    createDataSource(url, { poolSize: 1, applicationName: `jumbe-test-extra-${index}` }),
  );
  await Promise.all(sources.map((source) => source.initialize()));
  return sources;
}

export async function closeAll(sources: DataSource[]): Promise<void> {
  await Promise.all(sources.map((source) => (source.isInitialized ? source.destroy() : undefined)));
}
