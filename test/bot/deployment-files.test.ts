/**
 * The deployment files (Dockerfile, .dockerignore, .env.example, docker-compose.yml, deploy/k8s/) held to the
 * runtime contract (docs/PRODUCT.md › Runtime contract). No container runtime runs here, so each file is parsed:
 * every variable it sets is one `src/config.ts` reads, the values it provides make a configuration that
 * parses (once an operator fills in the blanks), the port is the bot's, the entry point is the build's
 * `main`, the user is not root, and every probe path answers 200 on a running bot.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { parseConfig, type ConfigResult } from '../../src/config.js';
import { startHarness, type Harness } from '../support/harness.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const exists = (path: string) => existsSync(new URL(path, ROOT));

/** Every variable config reads: the keys of its environment schema. */
const CONFIG_VARIABLES: ReadonlySet<string> = (() => {
  const source = read('src/config.ts');
  const schema = /const envSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(source)?.[1] ?? '';
  return new Set([...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!));
})();

const variablesOf = (result: ConfigResult) => (result.ok ? [] : result.problems.map((p) => p.split(':')[0]!));

/** What a deployment with Redis (the only way to run several replicas) cannot start without, as config reports it. */
const REQUIRED = variablesOf(parseConfig({ REDIS_URL: 'redis://redis:6379' }));

/** Valid stand-ins for the values an operator fills in (they ship empty). */
const SAMPLE: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'xoxb-0000-0000-sample',
  SLACK_SIGNING_SECRET: 'sample-signing-secret',
  CAMPAIGN_API_URL: 'https://platform.example.com/v1/api',
  SECRETS_KEY: randomBytes(32).toString('base64'),
  REDIS_URL: 'redis://redis:6379',
};

/** The environment an operator ends up with: what the file provides, the required blanks filled in. */
function filledIn(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  for (const name of REQUIRED) if (!out[name]?.trim()) out[name] = SAMPLE[name] ?? `(no sample for ${name})`;
  return out;
}

const DEFAULT_PORT = (() => {
  const parsed = parseConfig(filledIn({}));
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.config.port;
})();

it('knows what config reads and requires (the checks below rest on it)', () => {
  expect(CONFIG_VARIABLES).toContain('SLACK_SIGNING_SECRET');
  expect(CONFIG_VARIABLES).toContain('LOG_LEVEL');
  expect(CONFIG_VARIABLES.size).toBeGreaterThanOrEqual(19);
  expect(REQUIRED).toEqual(
    expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'CAMPAIGN_API_URL', 'SECRETS_KEY']),
  );
  expect(DEFAULT_PORT).toBe(3000);
});

// --- Dockerfile --------------------------------------------------------------------------------------------

interface Instruction {
  stage: number;
  op: string;
  args: string;
}

function dockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') stage++;
    out.push({ stage, op, args: m[2]!.trim() });
  }
  return out;
}

const DOCKERFILE = dockerfile(read('Dockerfile'));
const RUNTIME_STAGE = Math.max(...DOCKERFILE.map((i) => i.stage));
const runtime = (op: string) => DOCKERFILE.filter((i) => i.stage === RUNTIME_STAGE && i.op === op);
const HEALTHCHECK = JSON.parse(
  /\bCMD\s+(\[.*\])$/.exec(runtime('HEALTHCHECK')[0]?.args ?? '')?.[1] ?? '[]',
) as string[];

/** The path the image's HEALTHCHECK requests. */
const HEALTHCHECK_PATH = /\/[a-z]+z\b/.exec(HEALTHCHECK.join(' '))?.[0];

describe('Dockerfile', () => {
  it('builds in one stage and runs `npm ci --omit=dev` and the compiled output in a later one', () => {
    expect(RUNTIME_STAGE).toBeGreaterThanOrEqual(1);
    expect(runtime('RUN').some((i) => /\bnpm ci\b[^&|;]*--omit=dev/.test(i.args))).toBe(true);
    expect(runtime('COPY').some((i) => /^--from=\S+\s+\S*\/dist\s+\S*dist/.test(i.args))).toBe(true);
    // What the compiled code reads two levels up from its file (emoji names): scripts/generate-assets.ts.
    expect(runtime('COPY').some((i) => /^assets\s+(\.\/)?assets\/?$/.test(i.args))).toBe(true);
    expect(
      DOCKERFILE.filter((i) => i.stage < RUNTIME_STAGE && i.op === 'RUN').some((i) => /npm run build/.test(i.args)),
    ).toBe(true);
  });

  it('starts `node dist/bot/main.js` in exec form (node gets the signals), the built form of the real entry point', () => {
    const [cmd, ...more] = runtime('CMD');
    expect(more).toEqual([]);
    expect(JSON.parse(cmd!.args)).toEqual(['node', 'dist/bot/main.js']);
    expect(DOCKERFILE.filter((i) => i.op === 'ENTRYPOINT')).toEqual([]);
    const build = parse(read('tsconfig.build.json')) as { compilerOptions: { rootDir: string; outDir: string } };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(exists('src/bot/main.ts')).toBe(true);
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start).toContain(
      'node dist/bot/main.js',
    );
  });

  it('runs as a non-root user, by numeric id', () => {
    const users = runtime('USER').map((i) => i.args);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it('listens on the bot’s port and sets only variables config reads', () => {
    expect(runtime('EXPOSE').map((i) => i.args)).toEqual([String(DEFAULT_PORT)]);
    const env = Object.fromEntries(runtime('ENV').map((i) => i.args.split('=') as [string, string]));
    expect(env).toEqual({ PORT: String(DEFAULT_PORT) });
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
  });

  it('has a HEALTHCHECK in exec form on /healthz', () => {
    expect(HEALTHCHECK[0]).toBe('node');
    expect(HEALTHCHECK_PATH).toBe('/healthz');
  });

  it('sends only what the build copies: .dockerignore keeps node_modules, dist, .env and .git out', () => {
    const rules = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const included = (path: string) => {
      let keep = true;
      for (const rule of rules) {
        const negated = rule.startsWith('!');
        const pattern = rule.replace(/^!/, '').replace(/\/$/, '');
        if (pattern === '*' || pattern === path || path.startsWith(`${pattern}/`)) keep = negated;
      }
      return keep;
    };
    const copied = DOCKERFILE.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from')).flatMap((i) =>
      i.args.split(/\s+/).slice(0, -1),
    );
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'assets']));
    for (const path of copied) expect(included(path), path).toBe(true);
    for (const path of ['node_modules', 'dist', '.env', '.git', 'test', 'fakes', 'playground'])
      expect(included(path), path).toBe(false);
  });
});

// --- .env.example and docker-compose.yml ------------------------------------------------------------------

const ENV_EXAMPLE_LINES = read('.env.example').split('\n');
const ENV_EXAMPLE: Record<string, string> = Object.fromEntries(
  ENV_EXAMPLE_LINES.flatMap((l) => {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l);
    return m ? [[m[1]!, m[2]!]] : [];
  }),
);

interface ComposeService {
  build?: string;
  image?: string;
  env_file?: string | string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, unknown>;
  stop_grace_period?: string;
  command?: string[];
}
const COMPOSE_TEXT = read('docker-compose.yml');
const COMPOSE = parse(COMPOSE_TEXT) as { services: Record<string, ComposeService> };

/** Compose's `${NAME:-default}` with the values of .env (compose reads it for interpolation). */
const interpolate = (value: string) =>
  value.replace(/\$\{([A-Z0-9_]+):-([^}]*)\}/g, (_m, name: string, fallback: string) => ENV_EXAMPLE[name] || fallback);

describe('.env.example', () => {
  it('lists every variable config reads, once, each under a comment, and nothing else', () => {
    const names = ENV_EXAMPLE_LINES.flatMap((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1] ?? []);
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort());
    // Walking up from each variable through neighbours that are variables too reaches a comment.
    for (const [i, l] of ENV_EXAMPLE_LINES.entries()) {
      if (!/^[A-Z]/.test(l)) continue;
      let j = i - 1;
      while (j >= 0 && /^[A-Z]/.test(ENV_EXAMPLE_LINES[j]!)) j--;
      expect(ENV_EXAMPLE_LINES[j]?.startsWith('#'), `comment for ${l}`).toBe(true);
    }
  });

  it('ships no values: nothing secret to copy, and a forgotten required one stops the bot naming it', () => {
    expect(Object.entries(ENV_EXAMPLE).filter(([, v]) => v !== '')).toEqual([]);
    const parsed = parseConfig(ENV_EXAMPLE);
    expect(parsed.ok).toBe(false);
  });
});

describe('docker-compose.yml', () => {
  const bot = COMPOSE.services.bot!;

  it('builds the bot from this Dockerfile, with .env and a Redis service it waits for', () => {
    expect(bot.build).toBe('.');
    expect([bot.env_file].flat()).toContain('.env');
    const redisUrl = new URL(interpolate(bot.environment?.REDIS_URL ?? ''));
    const redis = COMPOSE.services[redisUrl.hostname];
    expect(redis?.image).toMatch(/^redis:/);
    expect(redis?.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    expect(memoryCeiling(redis?.command ?? [])).toBeGreaterThan(0);
    expect(Object.keys(bot.depends_on ?? {})).toContain(redisUrl.hostname);
  });

  it('sets and interpolates only variables config reads', () => {
    for (const name of Object.keys(bot.environment ?? {})) expect(CONFIG_VARIABLES).toContain(name);
    for (const [, name] of COMPOSE_TEXT.matchAll(/\$\{([A-Za-z0-9_]+)/g)) expect(CONFIG_VARIABLES).toContain(name);
  });

  it('gives a configuration that parses once the blanks of .env are filled in, listening on the published port', () => {
    const environment = Object.fromEntries(
      Object.entries(bot.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
    );
    const parsed = parseConfig(filledIn({ ...ENV_EXAMPLE, ...environment }));
    expect(parsed.ok ? parsed.config : parsed.problems).toMatchObject({
      port: DEFAULT_PORT,
      redisUrl: 'redis://redis:6379',
    });
    expect((bot.ports ?? []).map(interpolate)).toEqual([`${DEFAULT_PORT}:${DEFAULT_PORT}`]);
    // Health and metrics on a port of their own, published nowhere.
    expect(parsed.ok && parsed.config.opsPort).toBeGreaterThan(0);
    expect(parsed.ok && parsed.config.opsPort).not.toBe(DEFAULT_PORT);
  });

  it('lets the bot finish its shutdown before Docker kills it', () => {
    expect(Number(/^(\d+)s$/.exec(bot.stop_grace_period ?? '')?.[1])).toBeGreaterThan(12);
  });
});

// --- Kubernetes ---------------------------------------------------------------------------------------------

interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}
interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  image: string;
  ports: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe: Probe;
  livenessProbe: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
}

const K8S_DIR = 'deploy/k8s/';
const K8S_FILES = readdirSync(new URL(K8S_DIR, ROOT)).filter((f) => f.endsWith('.yaml'));
const K8S: Array<K8sObject & { file: string }> = K8S_FILES.flatMap((file) =>
  parseAllDocuments(read(`${K8S_DIR}${file}`)).map((d) => ({ ...(d.toJS() as K8sObject), file })),
);
/** The one object of `kind` in the folder, typed as far as the checks read it. */
function one<T extends object>(kind: string): K8sObject & { file: string } & T {
  const found = K8S.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`${K8S_DIR}: ${found.length} objects of kind ${kind}, expected 1`);
  return found[0] as K8sObject & { file: string } & T;
}

const probesOf = (c: Container) => [c.readinessProbe, c.livenessProbe, c.startupProbe].filter((p) => p !== undefined);

describe('deploy/k8s', () => {
  const deployment = one<{
    spec: {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    };
  }>('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0]!;
  const configMap = one<{ data: Record<string, string> }>('ConfigMap');
  const secret = one<{ stringData: Record<string, string> }>('Secret');
  const env: Record<string, string> = {
    ...configMap.data,
    ...secret.stringData,
    ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? ''])),
  };
  const portOf = (port: string | number) =>
    typeof port === 'number' ? port : container.ports.find((p) => p.name === port)?.containerPort;

  it('sets only variables config reads, all the required ones among them, from the ConfigMap and the Secret', () => {
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
    for (const name of REQUIRED) expect(Object.keys(env)).toContain(name);
    expect(container.envFrom).toEqual(
      expect.arrayContaining([
        { configMapRef: { name: configMap.metadata.name } },
        { secretRef: { name: secret.metadata.name } },
      ]),
    );
    // Secrets ship blank in a template that is not applied with the rest.
    expect(Object.values(secret.stringData).filter((v) => v !== '')).toEqual([]);
    const kustomization = one<{ resources: string[] }>('Kustomization');
    expect(kustomization.resources).not.toContain(secret.file);
    for (const file of kustomization.resources) expect(K8S_FILES).toContain(file);
  });

  const parsed = parseConfig(filledIn(env));
  const config = parsed.ok ? parsed.config : undefined;

  it('gives a configuration that parses once the blanks are filled in, with Redis, on the container ports', () => {
    expect(parsed.ok ? parsed.config.port : parsed.problems).toBe(DEFAULT_PORT);
    expect(portOf('http')).toBe(DEFAULT_PORT);
    expect(container.ports.map((p) => p.containerPort).sort()).toEqual([DEFAULT_PORT, config?.opsPort].sort());
  });

  it('keeps /metrics off the public port: OPS_PORT, or else a METRICS_TOKEN the Secret must fill', () => {
    expect(config?.opsPort ?? secret.stringData.METRICS_TOKEN).toBeTruthy();
    expect(portOf('ops')).toBe(config?.opsPort);
    expect(config?.opsPort).not.toBe(DEFAULT_PORT);
    // The Ingress routes only the public port; Prometheus scrapes the ops port.
    const ingress = one<{
      spec: { rules: Array<{ http: { paths: Array<{ backend: { service: { port: { name: string } } } }> } }> };
    }>('Ingress');
    const backends = ingress.spec.rules.flatMap((r) => r.http.paths.map((p) => p.backend.service.port.name));
    expect(new Set(backends)).toEqual(new Set(['http']));
    const monitor = parseAllDocuments(read(`${K8S_DIR}monitoring/service-monitor.yaml`))[0]?.toJS() as {
      spec: { endpoints: Array<{ port: string; path: string }> };
    };
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'ops', path: '/metrics' })]);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the ops port', () => {
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    for (const probe of probesOf(container)) expect(portOf(probe.httpGet.port)).toBe(config?.opsPort);
  });

  it('has a NetworkPolicy: PORT from the ingress controller, OPS_PORT from monitoring, egress to DNS, Redis and 443', () => {
    const policy = one<{
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: Array<{ from?: Array<Record<string, unknown>>; ports?: Array<{ port: string | number }> }>;
        egress: Array<{
          to?: Array<{ ipBlock?: { cidr: string; except?: string[] } }>;
          ports?: Array<{ port: string | number; protocol?: string }>;
        }>;
      };
    }>('NetworkPolicy');
    expect(deployment.spec.template.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);
    expect([...policy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    // Every rule names its sources (or destinations) and its ports: no rule lets everyone in or out.
    for (const rule of [...policy.spec.ingress, ...policy.spec.egress]) {
      expect(rule.ports?.length).toBeGreaterThan(0);
      expect(('from' in rule ? rule.from : (rule as { to?: unknown[] }).to)?.length).toBeGreaterThan(0);
    }
    const namespaceOf = (rule: { from?: Array<Record<string, unknown>> }) =>
      rule.from?.map((f) => (f.namespaceSelector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels);
    const byPort = (port: string) => policy.spec.ingress.filter((r) => r.ports?.some((p) => p.port === port));
    expect(byPort('http').flatMap(namespaceOf)).toEqual([{ 'kubernetes.io/metadata.name': 'ingress-nginx' }]);
    expect(byPort('ops').flatMap(namespaceOf)).toEqual([{ 'kubernetes.io/metadata.name': 'monitoring' }]);
    const egressPorts = policy.spec.egress.flatMap((r) => r.ports?.map((p) => p.port) ?? []);
    expect(new Set(egressPorts)).toEqual(new Set([53, 6379, 443]));
    // 443 only to public addresses: not the cloud metadata service, not private hosts.
    const https = policy.spec.egress.find((r) => r.ports?.some((p) => p.port === 443));
    const except = https?.to?.flatMap((t) => t.ipBlock?.except ?? []);
    expect(except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
    const kustomization = one<{ resources: string[] }>('Kustomization');
    expect(kustomization.resources).toContain(policy.file);
  });

  it('drains before SIGTERM and allows the whole shutdown within the grace period', () => {
    const preStop = container.lifecycle?.preStop;
    const drainS = preStop?.sleep?.seconds ?? Number(preStop?.exec?.command.join(' ').match(/^sleep (\d+)$/)?.[1]);
    expect(drainS).toBeGreaterThan(0);
    // The bot's own shutdown is forced after 10 s (README › Operations).
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(drainS + 10);
  });

  it('runs as the image’s non-root user', () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(String(pod.securityContext.runAsUser)).toBe(runtime('USER')[0]?.args.split(':')[0]);
  });

  it('scales the Deployment with an HPA of at least 2 replicas (state in the shared Redis), behind a Service and a PDB', () => {
    const hpa = one<{ spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number } }>(
      'HorizontalPodAutoscaler',
    );
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(Object.keys(env)).toContain('REDIS_URL');
    const labels = deployment.spec.template.metadata.labels;
    expect(labels).toMatchObject(deployment.spec.selector.matchLabels);
    const service = one<{ spec: { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> } }>(
      'Service',
    );
    expect(labels).toMatchObject(service.spec.selector);
    expect(service.spec.ports.map((p) => portOf(p.targetPort))).toEqual([DEFAULT_PORT, config?.opsPort]);
    const pdb = one<{ spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget');
    expect(labels).toMatchObject(pdb.spec.selector.matchLabels);
  });
});

/** Bytes of a `--maxmemory <n>[kb|mb|gb]` argument, as redis-server reads it (0 when absent: no ceiling). */
function memoryCeiling(args: readonly string[]): number {
  const value = args[args.indexOf('--maxmemory') + 1] ?? '';
  const m = args.includes('--maxmemory') ? /^(\d+)(kb|mb|gb)?$/i.exec(value) : null;
  const unit = { kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[m?.[2]?.toLowerCase() as 'kb' | 'mb' | 'gb'] ?? 1;
  return m ? Number(m[1]) * unit : 0;
}

/** Kubernetes' memory quantities (`512Mi`, `1536Mi`, `2Gi`) in bytes. */
const quantity = (q: string) =>
  Number(/^\d+/.exec(q)?.[0]) * ({ Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[q.replace(/^\d+/, '')] ?? 1);

describe('deploy/k8s/redis (a Redis for clusters without a managed one)', () => {
  const DIR = `${K8S_DIR}redis/`;
  const objects = readdirSync(new URL(DIR, ROOT))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(read(`${DIR}${file}`)).map((d) => ({ ...(d.toJS() as K8sObject), file })));
  const kindOf = <T extends object>(kind: string) =>
    objects.find((o) => o.kind === kind) as unknown as K8sObject & { file: string } & T;

  it('caps its memory with noeviction below the container’s limit, persists, and asks for a password', () => {
    const set = kindOf<{
      spec: {
        template: {
          spec: {
            containers: Array<{
              image: string;
              args: string[];
              env?: unknown[];
              resources: { limits: { memory: string } };
              volumeMounts: Array<{ name: string; mountPath: string }>;
            }>;
            volumes: Array<{ name: string; secret?: { secretName: string } }>;
          };
        };
      };
    }>('StatefulSet');
    const redis = set.spec.template.spec.containers[0]!;
    expect(redis.image).toMatch(/^redis:/);
    expect(redis.args).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    // The password from a config file in a Secret, never on the command line (ps, /proc/<pid>/cmdline).
    expect(redis.args.join(' ')).not.toMatch(/requirepass|\$\(|password/i);
    const conf = redis.args[0] ?? '';
    expect(conf).toMatch(/\.conf$/);
    const mount = redis.volumeMounts.find((m) => conf.startsWith(`${m.mountPath}/`));
    const volume = set.spec.template.spec.volumes.find((v) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBe('campaign-redis');
    expect(
      kindOf<{ spec: { podSelector: { matchLabels: Record<string, string> } } }>('NetworkPolicy').spec,
    ).toMatchObject({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'campaign-redis' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'campaign-bot' } } }] }],
    });
    const ceiling = memoryCeiling(redis.args);
    expect(ceiling).toBeGreaterThan(0);
    expect(ceiling).toBeLessThan(quantity(redis.resources.limits.memory));
    const kustomization = kindOf<{ resources: string[] }>('Kustomization');
    expect(kustomization.resources).toContain(set.file);
  });
});

// --- Against a running bot -------------------------------------------------------------------------------

describe('on a running bot', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers 200 on every probe path the files use (and 404 elsewhere)', async () => {
    const { containers } = one<{ spec: { template: { spec: PodSpec } } }>('Deployment').spec.template.spec;
    const probePaths = new Set([
      HEALTHCHECK_PATH ?? '(none)',
      ...containers.flatMap(probesOf).map((p) => p.httpGet.path),
    ]);
    expect([...probePaths].sort()).toEqual(['/healthz', '/readyz']);
    for (const path of probePaths) expect((await fetch(`${h.url}${path}`)).status, path).toBe(200);
    expect((await fetch(`${h.url}/livez`)).status).toBe(404);
  });

  it('passes the image’s HEALTHCHECK command, which fails when nothing listens', async () => {
    const run = (port: string) =>
      new Promise<number>((resolve) => {
        execFile(process.execPath, HEALTHCHECK.slice(1), { env: { PORT: port }, timeout: 10_000 }, (err) =>
          resolve(err ? Number(err.code ?? 1) : 0),
        );
      });
    expect(await run(new URL(h.url).port)).toBe(0);
    expect(await run('1')).toBe(1);
  });
});
