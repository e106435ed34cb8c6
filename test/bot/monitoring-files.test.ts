/**
 * The operations files an operator applies (deploy/k8s/ and its folders, deploy/grafana/) checked as
 * `kubectl apply -k` would need them: every resource a kustomization lists exists and parses, names, labels
 * and ports agree between objects, the Ingress serves the host and paths manifest.yml gives Slack, and every
 * metric the dashboard and the alert rules query is one a running bot serves on /metrics (scraped here, never a
 * list kept by hand).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { startHarness, type Harness } from '../support/harness.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
  [key: string]: unknown;
}

/** Every YAML document of a file, failing on a parse error rather than skipping it. */
function objectsOf(path: string): K8sObject[] {
  return parseAllDocuments(read(path)).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as K8sObject;
  });
}

/** Each folder under deploy/k8s with a kustomization, and the objects its resources render to. */
const KUSTOMIZATIONS = ['deploy/k8s/', 'deploy/k8s/redis/', 'deploy/k8s/monitoring/'].map((dir) => {
  const kustomization = parse(read(`${dir}kustomization.yaml`)) as { kind: string; resources: string[] };
  return {
    dir,
    kustomization,
    rendered: kustomization.resources.flatMap((file) =>
      existsSync(new URL(`${dir}${file}`, ROOT)) ? objectsOf(`${dir}${file}`).map((o) => ({ ...o, file })) : [],
    ),
  };
});
const APP = KUSTOMIZATIONS[0]!.rendered;
const MONITORING = KUSTOMIZATIONS[2]!.rendered;

function only<T>(objects: K8sObject[], kind: string): K8sObject & T {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`${found.length} objects of kind ${kind}, expected 1`);
  return found[0] as K8sObject & T;
}

interface ServicePort {
  name?: string;
  port: number;
  targetPort: string | number;
}
type Service = K8sObject & { spec: { selector: Record<string, string>; ports: ServicePort[] } };
interface IngressBackend {
  service: { name: string; port: { name?: string; number?: number } };
}
type Ingress = K8sObject & {
  spec: {
    ingressClassName?: string;
    tls: Array<{ hosts: string[]; secretName: string }>;
    rules: Array<{ host: string; http: { paths: Array<{ path: string; pathType: string; backend: IngressBackend }> } }>;
  };
};

describe('kustomizations', () => {
  it.each(KUSTOMIZATIONS)('$dir: every resource exists, parses, and is a named object', ({ dir, kustomization }) => {
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.resources.length).toBeGreaterThan(0);
    for (const file of kustomization.resources) {
      expect(existsSync(new URL(`${dir}${file}`, ROOT)), `${dir}${file}`).toBe(true);
      for (const o of objectsOf(`${dir}${file}`)) {
        expect(o.apiVersion, `${file}`).toMatch(/^[a-z0-9.]+(\/v[0-9a-z]+)?$|^v1$/);
        expect(o.kind, file).toMatch(/^[A-Z][A-Za-z]+$/);
        expect(o.metadata.name, file).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      }
    }
  });

  it.each(KUSTOMIZATIONS)('$dir: lists every YAML file beside it but the Secret template', ({ dir, kustomization }) => {
    const files = readdirSync(new URL(dir, ROOT)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'secret.example.yaml').sort());
  });

  it('gives every object of the bot its name label, and no two objects of one kind the same name', () => {
    for (const o of [...APP, ...MONITORING])
      expect(o.metadata.labels?.['app.kubernetes.io/name'], o.kind).toBe('campaign-bot');
    for (const { rendered } of KUSTOMIZATIONS) {
      const ids = rendered.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});

describe('Ingress', () => {
  const ingress = only<Pick<Ingress, 'spec'>>(APP, 'Ingress');
  const service = only<Pick<Service, 'spec'>>(APP, 'Service');
  /** Slack's URLs in the app manifest (its comments aside): the host and paths the Ingress must serve. */
  const manifestUrls = [
    ...read('manifest.yml')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n')
      .matchAll(/https:\/\/[^\s#'"]+/g),
  ].map((m) => new URL(m[0]));
  const paths = ingress.spec.rules.flatMap((r) => r.http.paths);

  it('serves manifest.yml’s host with TLS from cert-manager', () => {
    expect(manifestUrls.length).toBeGreaterThanOrEqual(5);
    const hosts = new Set(manifestUrls.map((u) => u.hostname));
    expect(ingress.spec.rules.map((r) => r.host)).toEqual([...hosts]);
    for (const host of hosts) expect(ingress.spec.tls.flatMap((t) => t.hosts)).toContain(host);
    expect(ingress.spec.tls.every((t) => t.secretName.length > 0)).toBe(true);
    expect(ingress.metadata.annotations?.['cert-manager.io/cluster-issuer']).toMatch(/\S/);
  });

  it('routes every URL Slack is given, and none of /metrics, /healthz, /readyz', () => {
    const routed = (path: string) =>
      paths.some(
        (p) => p.pathType === 'Prefix' && (path === p.path || path.startsWith(`${p.path.replace(/\/$/, '')}/`)),
      );
    for (const url of manifestUrls) expect(routed(url.pathname), url.pathname).toBe(true);
    for (const path of ['/hooks/some-token', '/attachments/some-token']) expect(routed(path), path).toBe(true);
    for (const path of ['/metrics', '/healthz', '/readyz']) expect(routed(path), path).toBe(false);
  });

  it('sends everything to the bot’s Service, on a port it has, whose target is the container’s port', () => {
    const deployment = only<{
      spec: { template: { spec: { containers: Array<{ ports: Array<{ name?: string; containerPort: number }> }> } } };
    }>(APP, 'Deployment');
    const containerPorts = deployment.spec.template.spec.containers.flatMap((c) => c.ports);
    for (const { backend } of paths) {
      expect(backend.service.name).toBe(service.metadata.name);
      const port = service.spec.ports.find((p) =>
        backend.service.port.name !== undefined
          ? p.name === backend.service.port.name
          : p.port === backend.service.port.number,
      );
      expect(port, JSON.stringify(backend.service.port)).toBeDefined();
      expect(
        containerPorts.some(
          (c) => (typeof port!.targetPort === 'number' ? c.containerPort : c.name) === port!.targetPort,
        ),
      ).toBe(true);
    }
  });
});

describe('deploy/k8s/monitoring', () => {
  it('scrapes the bot’s Service on its port, /metrics, with METRICS_TOKEN from the bot’s Secret', () => {
    const service = only<Pick<Service, 'spec'>>(APP, 'Service');
    const monitor = only<{
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: Array<{
          port: string;
          path: string;
          authorization?: { credentials: { name: string; key: string } };
        }>;
      };
    }>(MONITORING, 'ServiceMonitor');
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    const secret = objectsOf('deploy/k8s/secret.example.yaml')[0] as K8sObject & { stringData: Record<string, string> };
    for (const endpoint of monitor.spec.endpoints) {
      expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
      expect(endpoint.path).toBe('/metrics');
      expect(endpoint.authorization?.credentials.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(endpoint.authorization?.credentials.key);
    }
  });

  it('gives every alert a severity, a summary and a runbook-style description', () => {
    const names = ALERTS.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'CampaignDeliveryLagHigh',
        'CampaignDeadLettersRising',
        'CampaignLogLinesDropped',
        'CampaignStoreUnreachable',
        'CampaignSlackTokenRefused',
      ]),
    );
    for (const rule of ALERTS) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toMatch(/\S/);
      expect((rule.annotations?.description ?? '').length, rule.alert).toBeGreaterThan(150);
    }
  });
});

// --- Metric names against a running bot ---------------------------------------------------------------------

interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const ALERTS: AlertRule[] = only<{ spec: { groups: Array<{ rules: AlertRule[] }> } }>(
  MONITORING,
  'PrometheusRule',
).spec.groups.flatMap((g) => g.rules);

interface Panel {
  type: string;
  title?: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}
const DASHBOARD = JSON.parse(read('deploy/grafana/campaign-dashboard.json')) as { uid: string; panels: Panel[] };
const dashboardPanels = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...dashboardPanels(p.panels ?? [])]);
const QUERIES: Array<{ where: string; expr: string }> = [
  ...dashboardPanels(DASHBOARD.panels).flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `dashboard › ${p.title}`, expr: t.expr })),
  ),
  ...ALERTS.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
];

const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
]);

/** The metric names a PromQL expression selects: what is left once strings, matchers, ranges and calls are gone. */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .filter((m) => !/^\s*\(/.test(bare.slice(m.index + m[0].length))) // a function's name
    .map((m) => m[0])
    .filter((word) => !PROMQL_WORDS.has(word) && !/^(inf|nan)$/i.test(word));
}

describe('dashboard and alerts, against a running bot’s /metrics', () => {
  let h: Harness;
  /** Series names the bot serves: each `# TYPE`, a histogram's as Prometheus stores them. */
  let served: Set<string>;
  beforeAll(async () => {
    h = await startHarness();
    const text = await (await fetch(`${h.url}/metrics`)).text();
    served = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' || type === 'summary'
          ? [`${name!}_bucket`, `${name!}_sum`, `${name!}_count`, name!]
          : [name!],
      ),
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reads the expressions (the checks below rest on it)', () => {
    expect(metricsIn('sum by (le, x) (rate(a_total{s!~"2.."}[5m])) > 0 and max(b) == 0')).toEqual(['a_total', 'b']);
    expect(QUERIES.length).toBeGreaterThan(20);
    expect(served).toContain('campaign_queue_lag');
    expect(served).toContain('campaign_platform_request_seconds_bucket');
  });

  it('queries only metrics the bot serves, each query at least one', () => {
    const unknown = QUERIES.flatMap(({ where, expr }) => {
      const names = metricsIn(expr);
      if (names.length === 0) return [`${where}: no metric in ${expr}`];
      return names.filter((n) => !served.has(n)).map((n) => `${where}: ${n}`);
    });
    expect(unknown).toEqual([]);
  });

  it('charts the metrics an operator asks about first', () => {
    const charted = new Set(QUERIES.flatMap((q) => metricsIn(q.expr)));
    for (const name of [
      'campaign_queue_lag',
      'campaign_queue_depth',
      'campaign_events_dead_lettered_total',
      'campaign_slack_rate_limited_total',
      'campaign_slack_app_rate_limited_total',
      'campaign_platform_request_seconds_bucket',
      'campaign_platform_requests_total',
      'campaign_webhook_requests_total',
      'campaign_log_lines_dropped_total',
      'campaign_store_up',
      'campaign_slack_token_refused',
    ])
      expect(charted, name).toContain(name);
  });
});
