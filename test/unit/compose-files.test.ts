import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { loadConfig } from '../../src/config.js';

/**
 * Issue 41 item 3: the compose files in contrib/compose parse as YAML (duplicate keys and
 * dangling aliases are errors) and hold together as Compose files: known top-level keys, every
 * service has an image, named volumes are declared, bind-mounted files exist beside them,
 * depends_on names services, the centrals' config file loads, and the proxy names the centrals.
 */

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'contrib', 'compose');
const TOP = new Set(['name', 'services', 'volumes', 'networks', 'configs', 'secrets']);
const SERVICE = new Set(['image', 'restart', 'ports', 'environment', 'volumes', 'depends_on', 'healthcheck', 'command', 'user', 'cap_add']);

type Service = Record<string, unknown> & { image?: unknown; volumes?: string[]; environment?: Record<string, unknown>; depends_on?: unknown; ports?: unknown[] };
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> } & Record<string, unknown>;

function load(file: string): Compose {
  const doc = parseDocument(readFileSync(join(DIR, file), 'utf8'), { merge: true, uniqueKeys: true, prettyErrors: true });
  assert.deepEqual(doc.errors.map(String), [], `${file} parses`);
  return doc.toJS({ maxAliasCount: 10 }) as Compose;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

describe('the compose files', () => {
  test('there are the two documented ones', () => {
    assert.deepEqual(files.sort(), ['postgres.yaml', 'sqlite.yaml']);
  });

  for (const file of files) {
    test(`${file} holds together as a Compose file`, () => {
      const compose = load(file);
      for (const key of Object.keys(compose)) assert.ok(TOP.has(key) || key.startsWith('x-'), `${file}: unknown top-level key ${key}`);
      const services = Object.keys(compose.services);
      assert.ok(services.length > 0);
      for (const [name, service] of Object.entries(compose.services)) {
        const where = `${file}: service ${name}`;
        for (const key of Object.keys(service)) assert.ok(SERVICE.has(key), `${where}: unknown key ${key}`);
        assert.equal(typeof service.image, 'string', `${where}: image`);
        for (const port of service.ports ?? []) assert.match(String(port), /^\d+:\d+$/, `${where}: ports are quoted "HOST:CONTAINER"`);
        for (const [key, value] of Object.entries(service.environment ?? {})) {
          assert.equal(typeof value, 'string', `${where}: ${key} is a string`);
          for (const ref of String(value).match(/\$\{[^}]*\}/g) ?? []) assert.match(ref, /^\$\{[A-Z_]+(:?[-?][^}]*)?\}$/, `${where}: ${ref}`);
        }
        for (const volume of service.volumes ?? []) {
          const [source] = volume.split(':');
          if (source!.startsWith('.')) assert.ok(existsSync(join(DIR, source!)), `${where}: ${source} exists beside ${file}`);
          else assert.ok(source! in (compose.volumes ?? {}), `${where}: volume ${source} is declared`);
        }
        const deps = Array.isArray(service.depends_on) ? service.depends_on : Object.keys((service.depends_on as object | undefined) ?? {});
        for (const dep of deps as string[]) assert.ok(services.includes(dep), `${where}: depends_on ${dep}`);
      }
    });
  }

  test('sqlite.yaml keeps the data in a volume at /data and publishes 8080', () => {
    const { vigil } = load('sqlite.yaml').services;
    assert.deepEqual(vigil!.volumes, ['vigil-data:/data']);
    assert.deepEqual(vigil!.ports, ['8080:8080']);
  });

  test('postgres.yaml: two centrals on the database service, behind a proxy that names both', () => {
    const { services } = load('postgres.yaml');
    const centrals = Object.entries(services).filter(([, s]) => s.environment?.VIGIL_DATABASE_URL !== undefined);
    assert.deepEqual(centrals.map(([name]) => name), ['central-a', 'central-b']);
    for (const [name, central] of centrals) {
      const url = new URL(String(central.environment!.VIGIL_DATABASE_URL).replace(/\$\{[^}]*\}/g, 'secret'));
      assert.ok(url.hostname in services, `${name}: the database host is a service`);
      assert.equal(central.environment!.VIGIL_INSTANCE, name, 'each central has its own name');
      assert.ok(central.volumes!.includes('./central.json:/etc/vigil/central.json:ro'), `${name}: mounts the config`);
    }
    const config = loadConfig({ file: join(DIR, 'central.json'), env: {}, warn: (m) => assert.fail(m) });
    assert.equal(config.server.trustProxy, true, 'the centrals trust the proxy');
    const caddyfile = readFileSync(join(DIR, 'Caddyfile'), 'utf8');
    assert.match(caddyfile, /reverse_proxy central-a:8080 central-b:8080/);
    assert.match(caddyfile, /health_uri \/readyz/);
    assert.deepEqual(services.proxy!.ports, ['8080:8080']);
  });
});
