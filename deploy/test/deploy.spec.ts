import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { containersOf, deployDir, type KubeObject, renderKustomization } from './kustomize';

const root = join(deployDir, '..');
const overlay = join(deployDir, 'kubernetes', 'overlays', 'example');
const base = join(deployDir, 'kubernetes', 'base');

/** Validates one object against its Kubernetes schema (kubernetes-models, offline); throws if invalid. */
function validateKubernetes(object: KubeObject): void {
  // Core objects live under kubernetes-models/v1, the rest under kubernetes-models/<group>/<version>.

  const module = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Model = module[object.kind];
  if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(object).validate();
}

// deploy/compose-spec.json is vendored unchanged from github.com/compose-spec/compose-spec
// (schema/compose-spec.json at 170098ba07d9f53c383a41bfd4c5166b0a4529a6). Its `$schema` names
// draft-07 by an address Ajv does not know as its draft-07 meta-schema, so it is dropped here.
const { $schema: _draft, ...composeSchema } = JSON.parse(
  readFileSync(join(deployDir, 'compose-spec.json'), 'utf8'),
) as Record<string, unknown>;
const validateCompose = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(
  composeSchema,
);
const readCompose = () =>
  parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> | string[] }>;
  };

/** The variables libs/config reads: the keys of its environment schema. */
function knownVariables(): Set<string> {
  const source = readFileSync(join(root, 'libs', 'config', 'src', 'load-config.ts'), 'utf8');
  const block = /const environmentSchema = z\.object\(\{([\s\S]*?)\n\}\)/.exec(source);
  if (!block) throw new Error('environmentSchema not found in libs/config/src/load-config.ts');
  return new Set([...block[1].matchAll(/^ {2}(JUMBE_[A-Z0-9_]+):/gm)].map((match) => match[1]));
}

/** Every JUMBE_* name a deploy file sets: container env, Secret/ConfigMap keys, compose, Dockerfile. */
function variablesSet(objects: KubeObject[]): Map<string, string> {
  const found = new Map<string, string>();
  const note = (name: string, where: string) => name.startsWith('JUMBE_') && found.set(name, where);
  for (const object of objects) {
    const where = `${object.kind}/${object.metadata.name}`;
    for (const container of containersOf(object)) {
      for (const { name } of container.env ?? []) note(name, where);
    }
    for (const field of ['data', 'stringData']) {
      for (const name of Object.keys((object[field] as object | undefined) ?? {})) note(name, where);
    }
  }
  for (const [service, { environment }] of Object.entries(readCompose().services)) {
    const names = Array.isArray(environment)
      ? environment.map((entry) => entry.split('=')[0])
      : Object.keys(environment ?? {});
    for (const name of names) note(name, `docker-compose.yml ${service}`);
  }
  const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
  for (const match of dockerfile.matchAll(/\b(JUMBE_[A-Z0-9_]+)=/g)) note(match[1], 'Dockerfile');
  return found;
}

/** The Deployments Prometheus scrapes, by name. */
const SCRAPED = ['jumbe-gateway', 'jumbe-session-worker', 'jumbe-webhook-dispatcher'];

describe('deploy files', () => {
  const objects = renderKustomization(overlay);
  const byKind = (kind: string) => objects.filter((object) => object.kind === kind);

  it('renders the example overlay with every object the base promises', () => {
    const names = objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'Deployment/jumbe-gateway',
        'Deployment/jumbe-session-worker',
        'Deployment/jumbe-webhook-dispatcher',
        'HorizontalPodAutoscaler/jumbe-gateway',
        'Job/jumbe-migrate',
        'Namespace/jumbe',
        'NetworkPolicy/jumbe-session-worker',
        'PodDisruptionBudget/jumbe-gateway',
        'PodDisruptionBudget/jumbe-session-worker',
        'PodDisruptionBudget/jumbe-webhook-dispatcher',
        'Secret/jumbe',
        'Service/jumbe-gateway',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect(object.metadata.namespace).toBe('jumbe');
    }
    for (const object of [...byKind('Deployment'), ...byKind('Job')]) {
      expect(containersOf(object).map((c) => c.image)).toEqual(['registry.example.com/jumbe:1.0.0']);
    }
    const worker = byKind('Deployment').find((o) => o.metadata.name === 'jumbe-session-worker');
    expect((worker?.spec as { replicas: number }).replicas).toBe(3);
  });

  it('validates every rendered object against the Kubernetes schemas', () => {
    for (const object of [...objects, ...renderKustomization(base)]) {
      expect(() => validateKubernetes(object)).not.toThrow();
    }
  });

  it('hardens and probes every Deployment, and gives workers time to hand over', () => {
    for (const deployment of byKind('Deployment')) {
      const pod = (deployment.spec as { template: { spec: Record<string, any> } }).template.spec;
      for (const container of pod.containers) {
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
          expect(container[probe].httpGet.path).toBe('/api/v1/health');
        }
        expect(container.resources.requests).toEqual(
          expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
        );
      }
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    }
  });

  it('serves /metrics on a metrics port only Prometheus reaches, never on the service port', () => {
    const policies = byKind('NetworkPolicy');
    const deployments = byKind('Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SCRAPED);
    for (const deployment of deployments) {
      const template = (deployment.spec as { template: { metadata: any; spec: any } }).template;
      const [container] = template.spec.containers;
      const env = new Map<string, string>(container.env.map((e: any) => [e.name, e.value]));
      const metricsPort = Number(env.get('JUMBE_METRICS_PORT'));
      const servicePort = Number(env.get('JUMBE_PORT'));
      expect(metricsPort).toBeGreaterThan(0);
      expect(metricsPort).not.toBe(servicePort);
      const ports = new Map<string, number>(container.ports.map((p: any) => [p.name, p.containerPort]));
      expect(Object.fromEntries(ports)).toEqual({ http: servicePort, metrics: metricsPort });
      // Prometheus' annotations name the metrics port; the probes stay on the service port.
      expect(template.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': '/metrics',
      });
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
        expect(container[probe].httpGet.port).toBe('http');
      }
      // Its NetworkPolicy lets the metrics port be reached from the monitoring namespace only.
      const name = deployment.metadata.name;
      const policy = policies.find(
        (p: any) => p.spec.podSelector.matchLabels['app.kubernetes.io/name'] === name,
      );
      const rules = ((policy?.spec as any)?.ingress ?? []).filter((rule: any) =>
        rule.ports.some((port: any) => port.port === metricsPort || port.port === 'metrics'),
      );
      expect(rules.length).toBeGreaterThan(0);
      for (const rule of rules) {
        expect(rule.from).toEqual([
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ]);
      }
    }
    // The gateway's Service (what an ingress or load balancer sends to) carries the API port only.
    for (const service of byKind('Service')) {
      for (const port of (service.spec as any).ports) expect(['http', 8080]).toContain(port.targetPort);
    }
    // The Prometheus Operator's PodMonitor scrapes the same port of the same pods.
    const podMonitor = parse(
      readFileSync(join(deployDir, 'kubernetes', 'prometheus-operator', 'pod-monitor.yaml'), 'utf8'),
    ) as any;
    expect(podMonitor.kind).toBe('PodMonitor');
    expect(podMonitor.spec.selector.matchExpressions).toEqual([
      { key: 'app.kubernetes.io/name', operator: 'In', values: SCRAPED },
    ]);
    expect(podMonitor.spec.podMetricsEndpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics' }),
    ]);
  });

  it('gives every Compose service and the image a metrics port that is not published', () => {
    const compose = readCompose() as any;
    const jumbe = Object.entries<any>(compose.services).filter(
      ([name, service]) => service.image === 'jumbe:latest' && name !== 'migrate',
    );
    expect(jumbe.map(([name]) => name).sort()).toEqual([
      'all-in-one',
      'gateway',
      'session-worker',
      'webhook-dispatcher',
    ]);
    for (const [, service] of jumbe) {
      const { JUMBE_PORT, JUMBE_METRICS_PORT } = service.environment;
      expect(Number(JUMBE_METRICS_PORT)).toBeGreaterThan(0);
      expect(JUMBE_METRICS_PORT).not.toBe(JUMBE_PORT);
      for (const published of service.ports ?? []) {
        expect(String(published).split(':').at(-1)).toBe(JUMBE_PORT);
      }
    }
    const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/\bJUMBE_METRICS_PORT=9464\b/);
  });

  it('rejects a broken manifest', () => {
    const deployment = structuredClone(byKind('Deployment')[0]) as any;
    deployment.spec.replicas = 'two';
    expect(() => validateKubernetes(deployment)).toThrow();
    const missing = structuredClone(byKind('Deployment')[0]) as any;
    delete missing.spec.selector;
    expect(() => validateKubernetes(missing)).toThrow();
    const badPort = structuredClone(byKind('Service')[0]) as any;
    badPort.spec.ports[0].port = 'http';
    expect(() => validateKubernetes(badPort)).toThrow();
  });

  it('parses docker-compose.yml against the compose specification schema', () => {
    const compose = readCompose();
    const valid = validateCompose(compose);
    expect(validateCompose.errors ?? null).toBeNull();
    expect(valid).toBe(true);
    const broken = structuredClone(compose) as any;
    broken.services.gateway.helthcheck = { test: ['CMD', 'true'] };
    expect(validateCompose(broken)).toBe(false);
  });

  it('checks the compose topology: health checks, conditions, migrate, AOF, JetStream, profile', () => {
    const compose = readCompose() as any;
    for (const [name, service] of Object.entries<any>(compose.services)) {
      if (name !== 'migrate') expect(service.healthcheck?.test).toBeDefined();
      for (const dependency of Object.values<any>(service.depends_on ?? {})) {
        expect(['service_healthy', 'service_completed_successfully']).toContain(dependency.condition);
      }
    }
    expect(compose.services.gateway.depends_on.migrate.condition).toBe('service_completed_successfully');
    expect(compose.services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(compose.services.nats.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    expect(compose.services['all-in-one'].profiles).toEqual(['all-in-one']);
  });

  it('sets only JUMBE_* variables that libs/config knows', () => {
    const known = knownVariables();
    expect(known.has('JUMBE_SECRET_KEY')).toBe(true);
    const set = variablesSet(objects);
    expect(set.size).toBeGreaterThan(3);
    const unknown = [...set].filter(([name]) => !known.has(name)).map(([n, where]) => `${n} (${where})`);
    expect(unknown).toEqual([]);
    // The check itself: a misspelt variable is caught.
    const typo = structuredClone(objects);
    const secret = typo.find((o) => o.kind === 'Secret') as KubeObject;
    (secret.stringData as Record<string, string>).JUMBE_SECRETKEY = 'x';
    expect([...variablesSet(typo).keys()].filter((n) => !known.has(n))).toEqual(['JUMBE_SECRETKEY']);
  });
});
