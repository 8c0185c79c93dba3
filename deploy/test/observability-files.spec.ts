import { Telemetry } from '@jumbe/telemetry';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { deployDir } from './kustomize';

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description?: string };
}

interface DashboardPanel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

const alerts = parse(readFileSync(join(deployDir, 'prometheus', 'alerts.yml'), 'utf8')) as {
  groups: Array<{ name: string; rules: AlertRule[] }>;
};
const dashboard = JSON.parse(readFileSync(join(deployDir, 'grafana', 'jumbe.json'), 'utf8')) as {
  uid: string;
  panels: DashboardPanel[];
};

const rules = alerts.groups.flatMap((group) => group.rules);
const queries = [
  ...rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
  ),
];

/** Every family a Jumbe process exports: its telemetry registry, Node's default metrics included. */
async function exportedFamilies(): Promise<Map<string, string>> {
  const metrics = await new Telemetry().registry.getMetricsAsJSON();
  return new Map(metrics.map((metric) => [metric.name, String(metric.type)]));
}

/** The metric names a query reads, histogram series (`_bucket`, `_sum`, `_count`) by family. */
function metricsIn(expr: string, families: Map<string, string>): string[] {
  const names = expr.match(/\b(?:jumbe|process|nodejs)_[a-z0-9_]+\b/g) ?? [];
  return names.map((name) => {
    const family = name.replace(/_(bucket|sum|count)$/, '');
    return family !== name && families.get(family) === 'histogram' ? family : name;
  });
}

function unknownMetrics(families: Map<string, string>, checked = queries): string[] {
  return checked.flatMap(({ where, expr }) =>
    metricsIn(expr, families)
      .filter((name) => !families.has(name))
      .map((name) => `${name} (${where})`),
  );
}

describe('Prometheus alert rules and the Grafana dashboard', () => {
  it('alert on what the operations guide promises, each with a severity and a summary', () => {
    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'JumbeShardsWithoutWorker',
        'JumbeConsumerLagGrowing',
        'JumbeWebhookDeliveriesFailing',
        'JumbeSessionsDisconnected',
      ]),
    );
    for (const rule of rules) {
      expect(rule.labels.severity).toMatch(/^(critical|warning)$/);
      expect(rule.annotations.summary.length).toBeGreaterThan(10);
      expect(rule.expr.trim()).not.toBe('');
    }
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });

  it('query only metrics that Jumbe exports', async () => {
    const families = await exportedFamilies();
    const read = new Set(queries.flatMap(({ expr }) => metricsIn(expr, families)));
    // Both files use most of what matters; an empty extraction would pass vacuously.
    expect(read.size).toBeGreaterThan(15);
    expect(unknownMetrics(families)).toEqual([]);
    // The check itself: a misspelt family is caught.
    expect(unknownMetrics(families, [{ where: 'typo', expr: 'sum(jumbe_shard_owned)' }])).toEqual([
      'jumbe_shard_owned (typo)',
    ]);
  });

  it('give every dashboard panel a query, every query a datasource variable', () => {
    expect(dashboard.uid).toBe('jumbe-overview');
    const graphs = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(graphs.length).toBeGreaterThan(15);
    for (const panel of graphs) expect(panel.targets?.length).toBeGreaterThan(0);
    expect(JSON.stringify(dashboard)).not.toMatch(/"uid":\s*"(?!\$\{datasource\}|jumbe-overview)[^"]*"/);
  });
});
