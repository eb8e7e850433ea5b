'use strict';
// Checks of manifests/*.yml against what Cloud Foundry and the study need
// (docs/cf-platform.md §3, §4): YAML that parses, every
// ((var)) defined for both platforms (cf push fails on a missing one, §3), worker
// settings, the study's memory sizes, Java 17, no committed secrets, paths that exist.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const ROOT = path.resolve(__dirname, '..', '..');
const DIR = path.join(ROOT, 'manifests');
const VAR_FILES = ['vars-example.yml', 'vars-local.yml'];
const VAR_RE = /\(\(([^()]+)\)\)/g;
const SECRET_KEY_RE = /pass|secret|token|auth|credential|(^|_)key$|private/i;

const manifestFiles = fs.readdirSync(DIR)
  .filter((f) => f.endsWith('.yml') && !f.startsWith('vars'))
  .sort();

function readManifest(file) {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  return { text, doc: YAML.parse(text) };
}

function parseMegabytes(value) {
  const m = /^(\d+)(M|MB|G|GB)$/i.exec(String(value));
  assert.ok(m, `memory ${value}`);
  return Number(m[1]) * (/^g/i.test(m[2]) ? 1024 : 1);
}

function readVars(file) {
  return YAML.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) || {};
}

function app(file) {
  return readManifest(file).doc.applications[0];
}

/** Every string in a parsed YAML value, with its key path. */
function* strings(value, keyPath = []) {
  if (typeof value === 'string') yield [keyPath, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, [...keyPath, i]);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, [...keyPath, k]);
}

test('there are the four manifests', () => {
  assert.deepEqual(manifestFiles, ['chisel.yml', 'java-app.yml', 'loadgen.yml', 'node-app.yml']);
});

test('every manifest parses and names its applications', async (t) => {
  for (const file of manifestFiles) {
    await t.test(file, () => {
      const { doc } = readManifest(file);
      assert.ok(Array.isArray(doc.applications) && doc.applications.length > 0, 'applications: [...]');
      for (const a of doc.applications) {
        assert.match(a.name, /^[a-z][a-z0-9-]*$/);
        assert.ok(a.memory, `${a.name}: memory`);
        assert.ok(!('buildpack' in a), 'buildpack is deprecated, use buildpacks (§3)');
      }
    });
  }
});

test('every ((var)) is defined by every vars file, and no vars file has unused keys', async (t) => {
  const used = new Set();
  for (const file of manifestFiles) {
    for (const m of readManifest(file).text.matchAll(VAR_RE)) used.add(m[1]);
  }
  assert.ok(used.size > 0);
  for (const varsFile of VAR_FILES) {
    await t.test(varsFile, () => {
      const vars = readVars(varsFile);
      const missing = [...used].filter((v) => !(v in vars));
      assert.deepEqual(missing, [], `${varsFile} lacks ${missing.join(', ')} (cf push: "Expected to find variables")`);
      const unused = Object.keys(vars).filter((v) => !used.has(v));
      assert.deepEqual(unused, [], `${varsFile} defines unused ${unused.join(', ')}`);
      for (const [k, v] of Object.entries(vars)) assert.notEqual(v, null, `${varsFile}: ${k} is empty`);
    });
  }
});

test('the loadgen is a worker: no route, process health check (§3)', () => {
  const a = app('loadgen.yml');
  assert.equal(a['no-route'], true);
  assert.equal(a['health-check-type'], 'process');
  assert.ok(!a.routes && !a['random-route'], 'no routes on a worker');
});

test('the study sizes: node-app 200M, java-app 800M in both vars files', () => {
  assert.equal(app('node-app.yml').memory, '((node-memory))');
  assert.equal(app('java-app.yml').memory, '((java-memory))');
  for (const f of VAR_FILES) {
    const vars = readVars(f);
    assert.equal(vars['node-memory'], '200M', f);
    assert.equal(vars['java-memory'], '800M', f);
  }
});

test('java-app asks for Java 17 explicitly (older buildpacks default to 8, §4)', () => {
  const env = app('java-app.yml').env || {};
  assert.match(String(env.JBP_CONFIG_OPEN_JDK_JRE), /jre:\s*\{\s*version:\s*17\.\+\s*\}/);
});

test('a saturated instance is not killed by its liveness check: port, or http with an invocation timeout >= 10 s (§8)', async (t) => {
  for (const file of ['node-app.yml', 'java-app.yml']) {
    await t.test(file, () => {
      const a = app(file);
      const type = a['health-check-type'];
      assert.ok(type === 'port' || type === 'http', `${file}: health-check-type port or http, got ${type}`);
      // Absent, CC passes no timeout and Diego applies 1 s.
      assert.ok(Number(a['health-check-invocation-timeout']) >= 10, `${file}: health-check-invocation-timeout >= 10`);
      // A failing readiness check takes the instance out of the route in the middle of a round.
      assert.ok([undefined, 'process'].includes(a['readiness-health-check-type']), `${file}: no readiness check`);
      assert.ok(a.routes && a.routes.length === 1, 'one route');
    });
  }
});

test('chisel has an http health check on /health (§6)', () => {
  const a = app('chisel.yml');
  assert.equal(a['health-check-type'], 'http');
  assert.equal(a['health-check-http-endpoint'], '/health');
  assert.ok(a.routes && a.routes.length === 1, 'one route');
});

test('route hosts are vars: a fixed host collides across the foundation (§3), vars-example names them per user', async (t) => {
  const example = readVars('vars-example.yml');
  const local = readVars('vars-local.yml');
  for (const file of manifestFiles) {
    for (const a of app(file).routes || []) {
      await t.test(`${file}: ${a.route}`, () => {
        const m = /^\(\(([a-z0-9-]+)\)\)\.\(\(domain\)\)$/.exec(a.route);
        assert.ok(m, `${file}: route ${a.route} must be ((HOST-VAR)).((domain))`);
        const name = app(file).name;
        assert.notEqual(example[m[1]], name, 'vars-example.yml: not the bare app name');
        assert.match(String(example[m[1]]), /CHANGE-ME/, 'vars-example.yml: a value each user makes their own');
        assert.equal(local[m[1]], name, 'vars-local.yml: the local router keeps APP.localhost');
      });
    }
  }
});

test('the loadgen is not the first thing throttled: its CPU weight is not below any app\'s on CF (§7)', () => {
  const vars = readVars('vars-example.yml');
  // CC: 100 x clamp(MB, 128, 8192) / 8192 in integer arithmetic.
  const weight = (mem) => Math.floor((100 * Math.min(8192, Math.max(128, parseMegabytes(mem)))) / 8192);
  const lg = weight(vars['loadgen-memory']);
  for (const app of ['node-memory', 'java-memory']) assert.ok(lg >= weight(vars[app]), `loadgen weight ${lg} < ${app} weight ${weight(vars[app])}`);
});

test('chisel: Go buildpack, results-db bound, auth and key only from vars (§6)', () => {
  const a = app('chisel.yml');
  assert.deepEqual(a.buildpacks, ['go_buildpack']);
  assert.ok((a.services || []).includes('results-db'));
  assert.equal(a.env.CHISEL_AUTH, '((chisel-auth))');
  assert.equal(a.env.CHISEL_KEY, '((chisel-key))');
  assert.match(a.env.GOVERSION, /^go1\.\d+$/);
  const goMod = fs.readFileSync(path.join(ROOT, 'chisel', 'go.mod'), 'utf8');
  const goLine = /^go (\d+\.\d+)/m.exec(goMod)[1];
  assert.equal(a.env.GOVERSION, `go${goLine}`, 'GOVERSION must match the go line of chisel/go.mod (the buildpack ignores go.mod, §4)');
});

// The Go line the Go buildpack uses by default and carries longest: go-buildpack v1.10.23
// (2024-09) through v1.10.48 (docs/cf-platform.md §12).
const GO_BUILDPACK_DEFAULT_LINE = '1.23';

test('regression: chisel stages on Go buildpacks without Go 1.25 (go line above the default Go refused staging)', () => {
  const goMod = fs.readFileSync(path.join(ROOT, 'chisel', 'go.mod'), 'utf8');
  const [major, minor] = /^go (\d+)\.(\d+)/m.exec(goMod).slice(1).map(Number);
  const [dMajor, dMinor] = GO_BUILDPACK_DEFAULT_LINE.split('.').map(Number);
  assert.ok(major < dMajor || (major === dMajor && minor <= dMinor),
    `chisel/go.mod says go ${major}.${minor}; a Go ${GO_BUILDPACK_DEFAULT_LINE} toolchain would refuse it offline`);
  assert.equal(app('chisel.yml').env.GOVERSION, `go${GO_BUILDPACK_DEFAULT_LINE}`);
});

test('apps using a database find it by name: services listed, DB_SERVICE_NAME one of them', async (t) => {
  for (const file of ['node-app.yml', 'java-app.yml']) {
    await t.test(file, () => {
      const a = app(file);
      assert.ok(a.services.includes('results-db'));
      assert.ok(a.services.includes(a.env.DB_SERVICE_NAME), `DB_SERVICE_NAME ${a.env.DB_SERVICE_NAME} is bound`);
    });
  }
});

test('no secret-looking literal in any manifest', async (t) => {
  for (const file of manifestFiles) {
    await t.test(file, () => {
      for (const [keyPath, value] of strings(readManifest(file).doc)) {
        const key = String(keyPath[keyPath.length - 1]);
        const where = `${file}: ${keyPath.join('.')}`;
        assert.doesNotMatch(value, /:\/\/[^/\s:@]+:[^@\s]+@/, `${where}: credentials in a URL`);
        assert.doesNotMatch(value, /-----BEGIN/, `${where}: a key`);
        if (SECRET_KEY_RE.test(key)) {
          assert.match(value, /^\(\([a-z0-9-]+\)\)$/, `${where}: a secret-looking setting must be a ((var))`);
        }
      }
    });
  }
});

test('every path exists relative to its manifest (the java jar: pom finalName when not built)', async (t) => {
  for (const file of manifestFiles) {
    await t.test(file, () => {
      for (const a of readManifest(file).doc.applications) {
        assert.ok(a.path, `${a.name}: path`);
        const p = path.resolve(DIR, a.path);
        if (fs.existsSync(p)) continue;
        // A built artifact: accept target/ missing when the build names it so.
        const m = /^(.*)\/target\/([^/]+)\.jar$/.exec(p);
        assert.ok(m, `${file}: path ${a.path} does not exist`);
        const pom = fs.readFileSync(path.join(m[1], 'pom.xml'), 'utf8');
        assert.match(pom, new RegExp(`<finalName>${m[2]}</finalName>`), `${m[1]}/pom.xml finalName must be ${m[2]}`);
        assert.match(pom, /<packaging>jar<\/packaging>/);
      }
    });
  }
});
