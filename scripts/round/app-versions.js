'use strict';
// app-versions.js — what a round's app runs on, for rounds.versions: the libraries it is
// pushed with (node-app/package-lock.json: pg, pg-native, express; java-app/pom.xml: Jetty,
// HikariCP, the PostgreSQL JDBC driver) and its runtime — locally the node and java this
// machine starts it with (local-platform/lib/start-command.js), on CF the buildpacks of its
// current droplet, which choose the runtime (`cf curl /v3/apps/GUID/droplets/current`).
// A look-up that fails leaves its field out. The app database's PostgreSQL server: locally
// the results database's (create-round.js, the same server); on CF only the app reaches its
// database (a service instance on the foundation's network): not recorded.
const fs = require('node:fs');
const path = require('node:path');
const { capture } = require('../ops/exec');

const REPO = path.resolve(__dirname, '../..');

function readOr(file, dflt) {
  try { return fs.readFileSync(file, 'utf8'); } catch { return dflt; }
}

/** node-app's locked library versions. */
function nodeLibs(root = REPO) {
  let lock;
  try { lock = JSON.parse(readOr(path.join(root, 'node-app/package-lock.json'), '')); } catch { return {}; }
  const v = (name) => lock.packages?.[`node_modules/${name}`]?.version;
  return Object.fromEntries([['pg', v('pg')], ['pg_native', v('pg-native')], ['express', v('express')]].filter(([, x]) => x));
}

/** java-app's library versions from its pom (a version property or the dependency's own). */
function javaLibs(root = REPO) {
  const pom = readOr(path.join(root, 'java-app/pom.xml'), '');
  const dep = (artifact) => {
    const m = new RegExp(`<artifactId>${artifact}</artifactId>\\s*<version>([^<]+)</version>`).exec(pom);
    if (!m) return undefined;
    const prop = /^\$\{(.+)\}$/.exec(m[1]);
    return prop ? new RegExp(`<${prop[1].replace(/\./g, '\\.')}>([^<]+)</`).exec(pom)?.[1] : m[1];
  };
  return Object.fromEntries([['jetty', dep('jetty-server')], ['hikaricp', dep('HikariCP')], ['pgjdbc', dep('postgresql')]].filter(([, x]) => x));
}

/** The local runtime of an app: `node --version` or the first line of `java -version`. */
async function localRuntime(kind) {
  if (kind === 'java') {
    const r = await capture(['java', '-version'], { stderr: 'pipe' });
    const line = `${r.stderr || ''}${r.stdout || ''}`.split('\n')[0].trim();
    return r.code === 0 && line ? { java: line } : {};
  }
  const r = await capture(['node', '--version'], { stderr: 'ignore' });
  return r.code === 0 ? { node: r.stdout.trim() } : {};
}

/**
 * The versions of app `app` (node-app / java-app by name): {app_libs, node | java} locally,
 * {app_libs, buildpacks, stack} on CF. dropletOf(guid) → the current droplet document or null.
 */
async function appVersions(platform, app, { guid, dropletOf } = {}) {
  const kind = /java/.test(app) ? 'java' : 'node';
  const out = { app_libs: kind === 'java' ? javaLibs() : nodeLibs() };
  if (platform === 'local') return { ...out, ...(await localRuntime(kind)) };
  const d = guid && dropletOf ? await dropletOf(guid) : null;
  if (d) {
    out.buildpacks = (d.buildpacks ?? []).map((b) => `${b.buildpack_name || b.name}${b.version ? ` ${b.version}` : ''}`);
    if (d.stack) out.stack = d.stack;
  }
  return out;
}

module.exports = { appVersions, nodeLibs, javaLibs };
