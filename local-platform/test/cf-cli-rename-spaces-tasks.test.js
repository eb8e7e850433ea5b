// End to end with the real cf CLI against the local Cloud Controller: `cf rename` (the app
// keeps running under its new name), `cf create-space` / `cf delete-space` (with the roles
// the CLI gives its user), `cf create-app-manifest`, `cf running-environment-variable-group`,
// `cf run-task` / `cf tasks` / `cf terminate-task`. The tiny fixture app. Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cf, cfOk, curlJson, until } = w;
let guid;
let host;

test('push the tiny app (1 instance)', async () => {
  await w.login();
  const vars = path.join(w.home, 'vars.yml');
  fs.writeFileSync(vars, 'name: tiny\nmemory: 64M\ninstances: 1\ndomain: localhost\nservices: []\nbusy: "0"\n');
  await cfOk('push', 'tiny', '-f', 'local-platform/test/fixtures/tiny-app/manifest.yml', '--vars-file', vars);
  guid = await w.guid('tiny');
  host = (await curlJson(`/v3/apps/${guid}/routes`)).resources[0].url;
});

test('cf rename: the same app (guid, running instance, route) under the new name; a taken name is refused', async () => {
  const [before] = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources;
  assert.match(await cfOk('rename', 'tiny', 'tiny2'), /OK/);
  assert.equal(await w.guid('tiny2'), guid);
  assert.notEqual((await cf('app', 'tiny')).code, 0, 'the old name is gone');
  const [after] = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources;
  assert.deepEqual([after.state, after.instance_guid], ['RUNNING', before.instance_guid], 'the instance ran on');
  const r = await until('the route answers', async () => {
    const x = await w.http('GET', '/', { port: w.routerPort, host });
    return x.status === 200 && x;
  });
  assert.match(r.body, /instance 0/);
  await cfOk('create-app', 'other');
  const taken = await cf('rename', 'tiny2', 'other');
  assert.notEqual(taken.code, 0);
  assert.match(taken.out, /already exists/);
  assert.match(await cfOk('events', 'tiny2'), /audit\.app\.update/);
});

test('cf create-space / cf delete-space: a new empty space with the user\'s roles; `local` is kept', async () => {
  const out = await cfOk('create-space', 'dev');
  assert.match(out, /Assigning role SpaceManager to user admin in org local \/ space dev/);
  assert.match(out, /Assigning role SpaceDeveloper to user admin in org local \/ space dev/);
  assert.match(await cfOk('spaces'), /dev[\s\S]*local|local[\s\S]*dev/);
  assert.match(await cfOk('create-space', 'dev'), /already exists/);
  const dev = (await curlJson('/v3/spaces?names=dev')).resources[0].guid;
  assert.equal((await curlJson(`/v3/apps?space_guids=${dev}`)).resources.length, 0);
  assert.match(await cfOk('delete-space', 'dev', '-f'), /OK/);
  assert.equal((await curlJson('/v3/spaces?names=dev')).resources.length, 0);
  const local = await cf('delete-space', 'local', '-f');
  assert.notEqual(local.code, 0);
  assert.match(local.out, /keeps its space 'local'/);
});

test('cf create-app-manifest: the app as CC writes it', async () => {
  const file = path.join(w.home, 'tiny2_manifest.yml');
  assert.match(await cfOk('create-app-manifest', 'tiny2', '-p', file), /Manifest file created successfully/);
  const [app] = YAML.parse(fs.readFileSync(file, 'utf8')).applications;
  assert.equal(app.name, 'tiny2');
  assert.deepEqual(app.routes, [{ route: host, protocol: 'http1' }]);
  assert.deepEqual(app.processes, [{
    type: 'web', instances: 1, memory: '64M', disk_quota: '1024M', 'log-rate-limit-per-second': -1, command: 'exec node server.js',
    'health-check-type': 'http', 'health-check-http-endpoint': '/health', 'readiness-health-check-type': 'process',
  }]);
  assert.deepEqual([app.stack, app.lifecycle, app.buildpacks, app.env], ['cflinuxfs4', 'buildpack', ['nodejs_buildpack'], { BUSY: '0' }]);
});

test('cf running-environment-variable-group: none set', async () => {
  assert.match(await cfOk('running-environment-variable-group'), /No running environment variable group has been set\./);
});

test('cf run-task, cf tasks, cf terminate-task: a command run once from the droplet, its state and output', async () => {
  const ok = await cfOk('run-task', 'tiny2', '--command', 'echo "hello from $CF_INSTANCE_GUID" && test -f server.js', '--name', 'hello', '--wait');
  assert.match(ok, /Task has been submitted successfully for execution\.[\s\S]*task name: +hello[\s\S]*Task has completed successfully\./);
  const failed = await cf('run-task', 'tiny2', '--command', 'exit 3', '--name', 'fails', '--wait');
  assert.notEqual(failed.code, 0);
  await cfOk('run-task', 'tiny2', '--command', 'sleep 60', '--name', 'long');
  assert.match(await cfOk('terminate-task', 'tiny2', '3'), /OK/);
  const tasks = await until('all three ended', async () => {
    const list = (await curlJson(`/v3/apps/${guid}/tasks`)).resources;
    return list.length === 3 && list.every((t) => ['SUCCEEDED', 'FAILED'].includes(t.state)) && list;
  });
  assert.deepEqual(tasks.map((t) => [t.sequence_id, t.name, t.state, t.result.failure_reason]), [
    [1, 'hello', 'SUCCEEDED', null],
    [2, 'fails', 'FAILED', 'APP/TASK/fails: Exited with status 3'],
    [3, 'long', 'FAILED', 'task was cancelled'],
  ]);
  assert.match(await cfOk('tasks', 'tiny2'), /1 +hello +SUCCEEDED/);
  const logs = await until('the task\'s line in the log', async () => {
    const l = await cfOk('logs', 'tiny2', '--recent');
    return /\[APP\/TASK\/hello\/0\] OUT hello from/.test(l) && l;
  });
  assert.match(logs, /\[APP\/TASK\/hello\/0\] OUT hello from [0-9a-f-]{36}/);
  const bad = JSON.parse((await cf('curl', '-X', 'POST', `/v3/apps/${guid}/tasks`, '-d', '{"memory_in_mb":0}')).stdout);
  assert.equal(bad.errors[0].detail, 'Memory in mb must be greater than 0, Command No command or template provided');
});
