// manifest.js — read a CF app manifest the way `cf push` does: ((vars)) from --vars-file
// and --var, "Expected to find variables: ..." when one is missing, then the attributes the
// local platform honours (docs/cf-platform.md §3).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { manifestRouteOptions, appLoadbalancing } = require('./route-options');

const VAR_RE = /\(\(([-\w.]+)\)\)/g;
const WHOLE_VAR_RE = /^\(\(([-\w.]+)\)\)$/;
const HEALTH_CHECK_TYPES = ['port', 'process', 'http'];
const DEFAULT_MEMORY_MB = 1024; // CF default memory 1G (§3)
const DEFAULT_DISK_MB = 1024;
const DEFAULT_START_TIMEOUT_SEC = 60; // CF `timeout` default (§3)
// Without health-check-invocation-timeout CC passes none and Diego applies 1 s; an
// interval of 0 or none becomes the rep's 30 s (§8).
const DEFAULT_INVOCATION_TIMEOUT_SEC = 1;
const DEFAULT_HEALTH_INTERVAL_SEC = 30;

// A positive whole number of seconds, or the default when absent.
function seconds(app, key, dflt) {
  const v = app[key];
  if (v === undefined || v === null) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${key} must be a whole number of seconds, got "${v}"`);
  return n || dflt;
}

// Parse "200M", "1G", "512MB" into megabytes; CF requires a unit.
function parseMegabytes(value, what) {
  const m = /^(\d+)\s*(K|KB|M|MB|G|GB|T|TB)$/i.exec(String(value).trim());
  if (!m) throw new Error(`${what} must be an integer with a unit of measurement like M, MB, G, or GB, got "${value}"`);
  const n = Number(m[1]);
  const unit = m[2].toUpperCase()[0];
  const mb = { K: n / 1024, M: n, G: n * 1024, T: n * 1024 * 1024 }[unit];
  if (mb < 1) throw new Error(`${what} must be at least 1M, got "${value}"`);
  return Math.round(mb);
}

// Replace ((vars)) in every string of a parsed YAML tree. A whole-value ((x)) keeps the
// variable's type (as bosh interpolation does); a partial one becomes text.
function interpolate(node, vars, missing) {
  if (typeof node === 'string') {
    const whole = WHOLE_VAR_RE.exec(node);
    if (whole) {
      if (!(whole[1] in vars)) { missing.add(whole[1]); return node; }
      return vars[whole[1]];
    }
    return node.replace(VAR_RE, (all, name) => {
      if (!(name in vars)) { missing.add(name); return all; }
      return String(vars[name]);
    });
  }
  if (Array.isArray(node)) return node.map((v) => interpolate(v, vars, missing));
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) out[k] = interpolate(v, vars, missing);
    return out;
  }
  return node;
}

function loadVars(varsFiles = [], varPairs = []) {
  const vars = {};
  for (const f of varsFiles) {
    let doc;
    try { doc = YAML.parse(fs.readFileSync(f, 'utf8')); } catch (e) {
      throw new Error(`cannot read vars file ${f}: ${e.message}`);
    }
    if (doc && typeof doc === 'object') Object.assign(vars, doc);
  }
  for (const pair of varPairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new Error(`--var must be key=value, got "${pair}"`);
    vars[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return vars;
}

function detectBuildpack(appPath) {
  let st;
  try { st = fs.statSync(appPath); } catch { throw new Error(`app path ${appPath} does not exist`); }
  if (st.isFile()) {
    if (appPath.endsWith('.jar')) return 'java_buildpack';
    throw new Error(`app path ${appPath} is a file but not a .jar`);
  }
  if (fs.existsSync(path.join(appPath, 'package.json'))) return 'nodejs_buildpack';
  if (fs.existsSync(path.join(appPath, 'go.mod'))) return 'go_buildpack';
  throw new Error(`no buildpack detects ${appPath} (no package.json, go.mod or .jar)`);
}

// {routes: [host], routeOptions: {host: {loadbalancing}}} (options only where set).
function readRoutes(app) {
  if (app['no-route'] === true) return { routes: [], routeOptions: {} };
  const list = Array.isArray(app.routes) ? app.routes : [];
  const routes = [];
  const routeOptions = {};
  list.forEach((r, i) => {
    // The path part of a route is not routed locally (README: not faithful).
    const host = String((r && r.route) || '').split('/')[0].toLowerCase();
    if (!host) return;
    routes.push(host);
    const options = manifestRouteOptions(r.options, `routes[${i}]`);
    if (Object.keys(options).length) routeOptions[host] = options;
  });
  appLoadbalancing({ name: app.name, routes, routeOptions }); // one algorithm per app
  return { routes, routeOptions };
}

// One application entry → the normalised spec the platform runs.
function normaliseApp(app, manifestDir) {
  if (!app || typeof app.name !== 'string' || !app.name) throw new Error('manifest application without a name');
  if (!/^[A-Za-z0-9][-A-Za-z0-9_.]*$/.test(app.name)) throw new Error(`app name "${app.name}" has characters the local platform does not allow`);
  const appPath = path.resolve(manifestDir, app.path !== undefined ? String(app.path) : '.');
  const buildpacks = app.buildpacks || (app.buildpack ? [app.buildpack] : []);
  if (!fs.existsSync(appPath)) throw new Error(`app path ${appPath} does not exist`);
  let buildpack = buildpacks.length ? String(buildpacks[buildpacks.length - 1]) : null;
  // With a `command`, no buildpack needs to detect the app (binary_buildpack's case).
  if (!buildpack) buildpack = app.command ? 'binary_buildpack' : detectBuildpack(appPath);
  const hcType = app['health-check-type'] || 'port';
  if (!HEALTH_CHECK_TYPES.includes(hcType)) throw new Error(`health-check-type must be one of ${HEALTH_CHECK_TYPES.join(', ')}, got "${hcType}"`);
  const instances = app.instances === undefined ? 1 : Number(app.instances);
  if (!Number.isInteger(instances) || instances < 0) throw new Error(`instances must be a non-negative integer, got "${app.instances}"`);
  const env = {};
  for (const [k, v] of Object.entries(app.env || {})) env[k] = v === null ? '' : String(v);
  const services = (app.services || []).map((s) => (typeof s === 'string' ? s : s && s.name)).filter(Boolean);
  const timeoutSec = app.timeout === undefined ? DEFAULT_START_TIMEOUT_SEC : Number(app.timeout);
  return {
    name: app.name,
    path: appPath,
    buildpack,
    command: app.command ? String(app.command) : null,
    memoryMb: app.memory === undefined ? DEFAULT_MEMORY_MB : parseMegabytes(app.memory, 'memory'),
    diskMb: app.disk_quota === undefined ? DEFAULT_DISK_MB : parseMegabytes(app.disk_quota, 'disk_quota'),
    instances,
    env,
    services,
    ...readRoutes(app),
    healthCheck: {
      type: hcType,
      endpoint: app['health-check-http-endpoint'] || '/',
      invocationTimeoutSec: seconds(app, 'health-check-invocation-timeout', DEFAULT_INVOCATION_TIMEOUT_SEC),
      intervalSec: seconds(app, 'health-check-interval', DEFAULT_HEALTH_INTERVAL_SEC),
      startTimeoutSec: timeoutSec,
    },
    readinessCheck: readinessOf(app),
  };
}

// The readiness check (docs/cf-platform.md §8, §18): `process` (the default: ready when
// running), `port` or `http`; an instance is routable only while it passes.
function readinessOf(app) {
  const type = app['readiness-health-check-type'] || 'process';
  if (!HEALTH_CHECK_TYPES.includes(type)) throw new Error(`readiness-health-check-type must be one of ${HEALTH_CHECK_TYPES.join(', ')}, got "${type}"`);
  return {
    type,
    endpoint: app['readiness-health-check-http-endpoint'] || '/',
    invocationTimeoutSec: seconds(app, 'readiness-health-check-invocation-timeout', DEFAULT_INVOCATION_TIMEOUT_SEC),
    intervalSec: seconds(app, 'readiness-health-check-interval', DEFAULT_HEALTH_INTERVAL_SEC),
  };
}

// Read MANIFEST with vars; returns the normalised specs of its applications.
function readManifest(manifestPath, { varsFiles = [], vars: varPairs = [] } = {}) {
  let text;
  try { text = fs.readFileSync(manifestPath, 'utf8'); } catch {
    throw new Error(`manifest ${manifestPath} not found`);
  }
  const doc = YAML.parse(text);
  const missing = new Set();
  const resolved = interpolate(doc, loadVars(varsFiles, varPairs), missing);
  if (missing.size) throw new Error(`Expected to find variables: ${[...missing].sort().join(', ')}`);
  if (!resolved || !Array.isArray(resolved.applications) || !resolved.applications.length) {
    throw new Error(`manifest ${manifestPath} has no applications`);
  }
  const dir = path.dirname(path.resolve(manifestPath));
  return resolved.applications.map((a) => normaliseApp(a, dir));
}

module.exports = { readManifest, parseMegabytes, interpolate, loadVars };
