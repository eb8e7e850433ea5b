// End to end with the real cf CLI (.tools/bin/cf, v8, built by scripts/setup.sh) against the
// local platform's Cloud Controller API (cc-api/): log in as on PCF Dev, create the
// services, push node-app from manifests/ with vars-local.yml (its CONTROL_TOKEN set first),
// scale it, read the stats;
// and CC's errors for bad input. Its own CFSCALE_HOME, CF_HOME and ports (45200-45449).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cf, cfOk, curlJson, until } = w;

test('cfl up prints the API URL; cfl api-url prints it again', () => {
  assert.match(w.api, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(w.up.stdout, new RegExp(`api: +${w.api.replace(/[.]/g, '\\.')}`));
});

test('cf login -a API -u admin -o local -s local, password admin at its prompt, as on PCF Dev; the token is a JWT naming admin', async () => {
  await w.login();
  const target = await cfOk('target');
  assert.match(target, /user: +admin/);
  assert.match(target, /org: +local/);
  assert.match(target, /space: +local/);
  const config = JSON.parse(fs.readFileSync(path.join(w.cfHome, '.cf', 'config.json'), 'utf8'));
  const [, payload] = config.AccessToken.replace(/^bearer /, '').split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  assert.equal(claims.user_name, 'admin');
  assert.ok(claims.exp > Date.now() / 1000);
  const bad = await w.http('POST', '/oauth/token', {
    port: w.apiPort, body: 'grant_type=password&username=admin&password=wrong',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('cf:').toString('base64')}` },
  });
  assert.equal(bad.status, 401);
  assert.equal(JSON.parse(bad.body).error, 'unauthorized');
});

test('cfl login never replaces a user\'s login to another API: such a CF_HOME is left as it was, the project\'s logged in instead', async (t) => {
  const { spawnSync } = require('node:child_process');
  // The cf CLI found on PATH, as under scripts/test.sh (else cfl falls back to .tools/bin/cf).
  const PATH = `${path.join(w.repo, '.tools', 'bin')}:${w.env.PATH}`;
  const cfl = (cfHome) => spawnSync(path.join(w.repo, 'scripts', 'cfl'), ['login'], { env: { ...w.env, CF_HOME: cfHome, PATH }, encoding: 'utf8' });
  const target = (cfHome) => spawnSync(path.join(w.repo, '.tools', 'bin', 'cf'), ['target'], { env: { ...w.env, CF_HOME: cfHome }, encoding: 'utf8' });
  const loggedIn = (cfHome) => {
    const r = target(cfHome);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /user: +admin/);
    assert.match(r.stdout, /org: +local/);
    assert.match(r.stdout, /space: +local/);
  };
  const project = path.join(w.env.CFSCALE_HOME, 'cf-home');
  await t.test('a user\'s own CF_HOME: the project\'s is logged in instead, the user\'s config untouched', () => {
    const mine = path.join(w.home, 'users-cf-home');
    fs.mkdirSync(path.join(mine, '.cf'), { recursive: true });
    const config = JSON.stringify({ ConfigVersion: 3, Target: 'https://api.foundation.example.com', SpaceFields: { Name: 'mine' } });
    fs.writeFileSync(path.join(mine, '.cf', 'config.json'), config);
    const first = cfl(mine);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, '', 'stdout stays clean');
    // The password never on a command line: cf auth reads CF_PASSWORD; the line masks it.
    assert.match(first.stderr, /^cfl: cf api http:\/\/127\.0\.0\.1:\d+ --skip-ssl-validation && CF_USERNAME=admin CF_PASSWORD=\*\*\* cf auth && cf target -o local -s local$/m);
    assert.match(first.stderr, new RegExp(`^cfl: \\(in CF_HOME=${project}\\)$`, 'm'));
    assert.equal(fs.readFileSync(path.join(mine, '.cf', 'config.json'), 'utf8'), config);
    loggedIn(project);
    const again = cfl(mine);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(`${again.stdout}${again.stderr}`, '', 'logged in already: no second cf login');
  });
  await t.test('a CF_HOME the caller names that targets no API yet: logged in there', () => {
    const fresh = path.join(w.home, 'fresh-cf-home');
    fs.mkdirSync(fresh, { recursive: true });
    const r = cfl(fresh);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^cfl: \\(in CF_HOME=${fresh}\\)$`, 'm'));
    loggedIn(fresh);
  });
  await t.test('a CF_HOME inside CFSCALE_HOME (the report\'s): logged in there', () => {
    const inside = path.join(w.env.CFSCALE_HOME, 'report-cf-home');
    const r = cfl(inside);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^cfl: \\(in CF_HOME=${inside}\\)$`, 'm'));
    loggedIn(inside);
  });
});

test('cf api shows the CC API version; cf auth (wrong, then right CF_PASSWORD) and cf target -o -s work', async () => {
  assert.match(await cfOk('api'), /API version: +3\.\d+\.\d+/);
  const auth = (password) => w.run(path.join(w.repo, '.tools', 'bin', 'cf'), ['auth'], 60000, { env: { CF_USERNAME: 'admin', CF_PASSWORD: password } });
  const wrong = await auth('wrong');
  assert.equal(wrong.code, 1);
  assert.match(wrong.out, /Credentials were rejected/);
  const right = await auth('admin');
  assert.equal(right.code, 0, right.out);
  const target = await cfOk('target', '-o', 'local', '-s', 'local');
  assert.match(target, /org: +local/);
  assert.match(target, /space: +local/);
});

test('an endpoint the local API does not implement answers CC\'s 404 CF-NotFound (10000); no token: 401', async () => {
  assert.deepEqual(await curlJson('/v3/no_such_thing'), { errors: [{ detail: 'Unknown request', title: 'CF-NotFound', code: 10000 }] });
  const r = await w.http('GET', '/v3/apps', { port: w.apiPort });
  assert.equal(r.status, 401);
  assert.equal(JSON.parse(r.body).errors[0].code, 10002);
});

test('cf marketplace lists postgres/local; cf create-service makes node-db and results-db; cf services lists them', async () => {
  assert.match(await cfOk('marketplace'), /postgres +local +/);
  await cfOk('create-service', 'postgres', 'local', 'node-db');
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  const again = await cfOk('create-service', 'postgres', 'local', 'node-db');
  assert.match(again, /already exists/);
  const services = await cfOk('services');
  assert.match(services, /node-db +postgres +local/);
  assert.match(services, /results-db +postgres +local/);
});

// node-app created empty and given a CONTROL_TOKEN before its push, as scripts/push.sh does: the push keeps it.
test('cf create-app node-app, cf set-env CONTROL_TOKEN, cf push node-app -f manifests/node-app.yml --vars-file vars-local.yml, cf scale -i 2: 2 RUNNING in the v3 stats', async () => {
  await cfOk('create-app', 'node-app');
  await cfOk('set-env', 'node-app', 'CONTROL_TOKEN', 'cf-cli-test-control-token-0123456789');
  await cfOk('push', 'node-app', '-f', 'manifests/node-app.yml', '--vars-file', 'manifests/vars-local.yml');
  const guid = (await cfOk('app', 'node-app', '--guid')).trim();
  assert.match((await cfOk('apps')), /node-app +started +web:1\/1/);
  // The route as the resolved manifest made it, never assumed from the app's name.
  const routes = await curlJson(`/v3/apps/${guid}/routes`);
  assert.equal(routes.resources.length, 1);
  const health = await w.http('GET', '/health', { port: w.routerPort, host: routes.resources[0].url });
  assert.equal(health.status, 200);
  const env = await curlJson(`/v3/apps/${guid}/environment_variables`);
  assert.equal(env.var.DB_SERVICE_NAME, 'node-db');
  assert.equal(env.var.CONTROL_TOKEN, 'cf-cli-test-control-token-0123456789', 'the manifest\'s env is merged into the variables set before');

  await cfOk('scale', 'node-app', '-i', '2');
  const stats = await until('2 RUNNING instances', async () => {
    const s = await curlJson(`/v3/apps/${guid}/processes/web/stats`);
    return s.resources.filter((r) => r.state === 'RUNNING').length === 2 && s;
  });
  assert.deepEqual(stats.resources.map((r) => r.index), [0, 1]);
  assert.equal(stats.resources[0].mem_quota, 200 * 1024 * 1024);
});

test('bad input gets CC\'s errors: scale to -1 (422, 10008), an unknown app (10010), a malformed created_ats (400, 10005), a manifest naming an unknown service', async () => {
  const guid = (await cfOk('app', 'node-app', '--guid')).trim();
  assert.deepEqual(await curlJson('-X', 'POST', `/v3/apps/${guid}/processes/web/actions/scale`, '-d', '{"instances":-1}'),
    { errors: [{ detail: 'Instances must be greater than or equal to 0', title: 'CF-UnprocessableEntity', code: 10008 }] });
  assert.deepEqual(await curlJson('/v3/apps/no-such-guid'),
    { errors: [{ detail: 'App not found', title: 'CF-ResourceNotFound', code: 10010 }] });
  assert.deepEqual(await curlJson(`/v3/audit_events?target_guids=${guid}&created_ats[gt]=yesterday`), { errors: [{
    detail: "The query parameter is invalid: Created ats has an invalid timestamp format. Timestamps should be formatted as 'YYYY-MM-DDThh:mm:ssZ'",
    title: 'CF-BadQueryParameter', code: 10005 }] });
  const app = await cf('app', 'no-such-app');
  assert.equal(app.code, 1);
  assert.match(app.out, /App 'no-such-app' not found/);

  const manifest = path.join(w.home, 'bad.yml');
  fs.writeFileSync(manifest, `applications:\n- name: bad-app\n  path: ${path.join(w.repo, 'node-app')}\n  buildpacks: [nodejs_buildpack]\n  services: [no-such-db]\n`);
  const push = await cf('push', 'bad-app', '-f', manifest);
  assert.equal(push.code, 1, push.out);
  assert.match(push.out, /For application 'bad-app': Service instance 'no-such-db' not found/);
});
