import { dependencyOrder } from './database-tables';

describe('dependencyOrder', () => {
  const tables = ['webhooks', 'accounts', 'plans', 'migrations', 'network_credentials', 'sessions'].map(
    (name) => ({
      name,
    }),
  );
  const references = [
    { child: 'accounts', parent: 'plans' },
    { child: 'sessions', parent: 'accounts' },
    { child: 'network_credentials', parent: 'sessions' },
    { child: 'webhooks', parent: 'accounts' },
  ];

  it('puts every table after the tables it references, so rows load with foreign keys checked', () => {
    const order = dependencyOrder(tables, references).map((table) => table.name);
    expect(order).toHaveLength(tables.length);
    for (const { child, parent } of references)
      expect(order.indexOf(parent)).toBeLessThan(order.indexOf(child));
  });

  it('refuses tables that reference each other in a cycle', () => {
    expect(() =>
      dependencyOrder(tables, [...references, { child: 'plans', parent: 'network_credentials' }]),
    ).toThrow(/cycle/);
  });
});
