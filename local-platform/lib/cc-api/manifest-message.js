// manifest-message.js — what Cloud Controller checks in a manifest before it accepts it
// (app/messages/app_manifest_message.rb, app/controllers/v3/space_manifests_controller.rb
// apply_manifest: every error of every app in one 422, "For application 'NAME': …"), and
// how its keys become one app's attributes here (docs/cf-platform.md §18): the `web` entry
// of `processes:` over the top-level process keys; `random-route`; the readiness check.
// A process type other than web is refused, naming it: the local platform runs web only.
'use strict';

const crypto = require('node:crypto');
const V = require('./validate');

// ByteConverter's units (lib/cloud_controller/app_manifest/byte_converter.rb).
const BYTES = /^\s*-?\d+(\.\d+)?\s*(B|K|KB|M|MB|G|GB|T|TB)\s*$/i;
// The keys of a `processes:` entry that CC applies to that process
// (manifest_process_update_message.rb, manifest_process_scale_message.rb).
const PROCESS_KEYS = ['command', 'disk_quota', 'health-check-http-endpoint', 'health-check-invocation-timeout',
  'health-check-interval', 'health-check-type', 'instances', 'log-rate-limit-per-second', 'memory',
  'readiness-health-check-http-endpoint', 'readiness-health-check-invocation-timeout',
  'readiness-health-check-interval', 'readiness-health-check-type', 'timeout', 'type', 'user'];

// validate_byte_format: the message for a memory or disk value, or null.
function byteProblem(v, label) {
  if (v === undefined || v === null) return null;
  if (!/^\s*-?\d/.test(String(v))) return `${label} is not a number`;
  return BYTES.test(String(v)) ? null : `${label} must use a supported unit: B, K, KB, M, MB, G, GB, T, or TB`;
}

// Problems of one process's keys (top level: the web process), prefixed `Process "TYPE": `.
function processProblems(p, type) {
  const out = [];
  const add = (m) => m && out.push(`Process "${type}": ${m}`);
  add(byteProblem(p.memory, 'Memory'));
  add(byteProblem(p.disk_quota, 'Disk quota'));
  for (const m of V.integer('Instances', p.instances, { gte: 0 })) add(m);
  for (const m of V.integer('Timeout', p.timeout, { gte: 1 })) add(m);
  for (const [k, label] of [['health-check-type', 'Health check type'], ['readiness-health-check-type', 'Readiness health check type']]) {
    if (p[k] !== undefined && !['port', 'process', 'http', 'none'].includes(p[k])) add(`${label} must be "port", "process", or "http"`);
  }
  for (const k of ['health-check-invocation-timeout', 'health-check-interval', 'readiness-health-check-invocation-timeout', 'readiness-health-check-interval']) {
    const label = k.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
    for (const m of V.integer(label, p[k], { gte: 1 })) add(m);
  }
  return out;
}

// ManifestRoutesUpdateMessage: a list of {route, options?}, each a URL with a host
// (ManifestRoute#valid?: scheme http, https or none; a port only for tcp), options an object
// of route options with an algorithm CC knows. Locally a route's host must also be a DNS
// name the router can match: letters, digits, '-', '_', '.', a leading '*.' (labels ≤ 63).
const ROUTE_URL = /^(?:(https?|tcp):\/\/)?([^/:?#\s]*)(?::(\d+))?(\/[^\s?#]*)?$/i;
const ROUTE_HOST = /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/i;
function routeProblems(routes) {
  if (!Array.isArray(routes) || routes.some((r) => !V.isObject(r) || typeof r.route !== 'string')) return ['Routes must be a list of route objects'];
  const out = [];
  for (const r of routes) {
    const m = ROUTE_URL.exec(r.route);
    const host = m ? m[2] : '';
    if (!m || !host || (m[3] && m[1] && m[1].toLowerCase() !== 'tcp') || (!m[3] && m[1] && m[1].toLowerCase() === 'tcp')) {
      out.push(`The route '${r.route}' is not a properly formed URL`);
    } else if (!ROUTE_HOST.test(host) || host.split('.').some((l) => l.length > 63) || host.length > 253) {
      out.push(`The route '${r.route}': its host must be letters, digits, '-' and '_' in labels of at most 63 characters`);
    }
    if (r.options === undefined || r.options === null) continue;
    if (!V.isObject(r.options)) { out.push(`Route '${r.route}': options must be an object`); continue; }
    for (const k of Object.keys(r.options).filter((x) => x !== 'loadbalancing')) {
      out.push(`Route '${r.route}' contains invalid route option '${k}'. Valid keys: 'loadbalancing'`);
    }
    const lb = r.options.loadbalancing;
    if (lb !== undefined && !['round-robin', 'least-connection'].includes(lb)) {
      out.push(`Cannot use loadbalancing value '${lb}' for Route '${r.route}'; Valid values are: 'round-robin, least-connection'`);
    }
  }
  return out;
}

// ManifestServiceBindingCreateMessage: names, or {name, parameters?, binding_name?}.
function servicesValid(services) {
  if (!Array.isArray(services)) return false;
  return services.every((s) => typeof s === 'string' || (V.isObject(s) && typeof s.name === 'string'
    && Object.keys(s).every((k) => ['name', 'parameters', 'binding_name'].includes(k))
    && (s.parameters === undefined || V.isObject(s.parameters)) && (s.binding_name === undefined || typeof s.binding_name === 'string')));
}

// Every problem of one application entry (without the "For application" prefix).
function entryProblems(e) {
  const problems = [...processProblems(e, 'web')];
  if (typeof e.name !== 'string') problems.push('Name must be a string');
  if (e.routes !== undefined) problems.push(...routeProblems(e.routes));
  if (e.services !== undefined && !servicesValid(e.services)) problems.push('Services must be a list of service instances');
  if (e.buildpacks !== undefined && e.buildpacks !== null && !(Array.isArray(e.buildpacks) && e.buildpacks.every((b) => typeof b === 'string'))) {
    problems.push('Buildpacks must be an array of strings');
  }
  if (e.buildpack !== undefined && e.buildpack !== null && typeof e.buildpack !== 'string') problems.push('Buildpack must be a string');
  if (e.buildpack !== undefined && e.buildpacks !== undefined) problems.push('Buildpack and Buildpacks fields cannot be used together.');
  if (e.command !== undefined && e.command !== null && typeof e.command !== 'string') problems.push('Command must be a string');
  if (e.processes !== undefined) {
    if (!Array.isArray(e.processes)) return [...problems, 'Processes must be an array of process configurations'];
    if (e.processes.some((p) => !V.isObject(p) || !p.type)) problems.push('All Processes must specify a type');
    const types = e.processes.map((p) => p && p.type).filter(Boolean);
    for (const t of new Set(types.filter((t, i) => types.indexOf(t) !== i))) problems.push(`Process "${t}" may only be present once`);
    for (const p of e.processes.filter((x) => V.isObject(x) && x.type)) {
      if (p.type !== 'web') problems.push(`Process "${p.type}": the local platform runs only the web process; processes other than web are not run`);
      problems.push(...processProblems(p, p.type));
    }
  }
  // The manifest's values become strings (env_update_attribute_mapping: transform_values(&:to_s)).
  if (e.env !== undefined && e.env !== null) {
    problems.push(...V.environmentVariables('Env', V.isObject(e.env) ? Object.fromEntries(Object.keys(e.env).map((k) => [k, ''])) : e.env));
  }
  for (const k of ['random-route', 'no-route', 'default-route']) {
    if (e[k] !== undefined && typeof e[k] !== 'boolean') problems.push(`${k.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase())} must be a boolean`);
  }
  if (e.sidecars !== undefined) problems.push('Sidecars: the local platform runs no sidecars');
  if (e.docker !== undefined) problems.push('Docker: the local platform runs buildpack apps only (feature flag diego_docker is disabled)');
  return problems;
}

// CC's compound 422 of a manifest: one error per problem, each prefixed with its app.
function manifestProblems(entries) {
  return entries.flatMap((e, i) => entryProblems(e).map((m) => (e.name ? `For application '${e.name}': ${m}` : `For application at index ${i}: ${m}`)));
}

// What AppCreate says of each new app's name, before any is made (space_manifests_controller.rb
// makes them one by one; here none is made when one would be refused), and the stripped
// names; a name over 255 characters gets AppCreateMessage's words (CC's column refuses it).
function manifestNames(entries) {
  const problems = [];
  const names = entries.map((e) => {
    const { message, model, name } = V.appName(e.name);
    for (const m of [...message, ...model]) problems.push(`For application '${e.name}': ${m}`);
    return name;
  });
  return { problems, names };
}

// The entry with its web process's keys at the top level (the process's win, as CC applies
// the process's messages after the app's) and no `processes:`.
function withWebProcess(entry) {
  const web = Array.isArray(entry.processes) ? entry.processes.find((p) => p && p.type === 'web') : null;
  const { processes: _p, ...rest } = entry;
  if (!web) return rest;
  const { type: _t, ...keys } = web;
  return { ...rest, ...Object.fromEntries(Object.entries(keys).filter(([k]) => PROCESS_KEYS.includes(k))) };
}

// CC's random route (app_apply_manifest.rb update_routes, RandomRouteGenerator):
// "APP-ADJECTIVE-NOUN-xy" on the default domain, only for an app without routes.
const ADJECTIVES = ['accountable', 'active', 'agile', 'anxious', 'appreciative', 'balanced', 'bogus', 'boisterous', 'bold', 'boring', 'brash', 'brave', 'bright', 'busy', 'chatty', 'cheerful', 'chipper', 'comedic'];
const NOUNS = ['aardvark', 'alligator', 'antelope', 'armadillo', 'baboon', 'badger', 'bandicoot', 'bat', 'bear', 'bilby', 'bongo', 'buffalo', 'bushbuck', 'camel', 'capybara', 'cassowary', 'cat', 'cheetah'];
function randomHost(appName) {
  const pick = (a) => a[crypto.randomInt(a.length)];
  const letter = () => String.fromCharCode(97 + crypto.randomInt(26));
  return `${appName}-${pick(ADJECTIVES)}-${pick(NOUNS)}-${letter()}${letter()}`;
}

module.exports = { manifestProblems, manifestNames, withWebProcess, randomHost };
