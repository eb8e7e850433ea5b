'use strict';
// app-versions.test.js — the versions a round records for its app: the libraries from
// node-app's lock file and java-app's pom (a property-held version resolved), the local
// runtime, and on CF the current droplet's buildpacks and stack.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { appVersions, javaLibs, nodeLibs } = require('./app-versions');

test('libraries: the lock file and the pom, a ${property} version resolved', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-app-versions-'));
  try {
    fs.mkdirSync(path.join(root, 'node-app'));
    fs.mkdirSync(path.join(root, 'java-app'));
    fs.writeFileSync(path.join(root, 'node-app/package-lock.json'), JSON.stringify({ packages: {
      'node_modules/pg': { version: '8.1.0' }, 'node_modules/pg-native': { version: '3.2.0' } } }));
    fs.writeFileSync(path.join(root, 'java-app/pom.xml'), `<project><properties><jetty.version>12.0.39</jetty.version></properties>
      <dependency><artifactId>jetty-server</artifactId>
        <version>\${jetty.version}</version></dependency>
      <dependency><artifactId>HikariCP</artifactId><version>6.3.0</version></dependency></project>`);
    assert.deepEqual(nodeLibs(root), { pg: '8.1.0', pg_native: '3.2.0' });
    assert.deepEqual(javaLibs(root), { jetty: '12.0.39', hikaricp: '6.3.0' });
    assert.deepEqual(nodeLibs(path.join(root, 'none')), {});
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the shipped apps: every library of the study named (study §6.1: Jetty, HikariCP, JDBC; pg, pg-native)', () => {
  assert.deepEqual(Object.keys(javaLibs()).sort(), ['hikaricp', 'jetty', 'pgjdbc']);
  assert.deepEqual(Object.keys(nodeLibs()).sort(), ['express', 'pg', 'pg_native']);
});

test('runtime: locally the node / java that starts the app; on CF the droplet buildpacks and stack', async () => {
  assert.equal((await appVersions('local', 'node-app')).node, process.version);
  const droplet = { stack: 'cflinuxfs4', buildpacks: [{ name: 'java_buildpack', buildpack_name: 'java', version: '4.77.0' }, { name: 'x' }] };
  const asked = [];
  const cf = await appVersions('cf', 'java-app', { guid: 'G', dropletOf: (g) => { asked.push(g); return droplet; } });
  assert.deepEqual(asked, ['G']);
  assert.deepEqual(cf.buildpacks, ['java 4.77.0', 'x']);
  assert.equal(cf.stack, 'cflinuxfs4');
  assert.equal(cf.java, undefined, 'the workstation runtime is not the app runtime on CF');
  assert.deepEqual(Object.keys(await appVersions('cf', 'node-app', { guid: 'G', dropletOf: () => null })), ['app_libs']);
});
