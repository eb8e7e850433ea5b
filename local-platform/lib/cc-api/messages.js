// messages.js — Cloud Controller's request messages of the create endpoints, checked as CC
// checks them before it touches anything (cloud_controller_ng app/messages/*_message.rb; the
// limits: docs/cf-platform.md §23). Each returns the problems in CC's words ([] when fine);
// the handler answers them as one 422 CF-UnprocessableEntity (10008), joined by ", ".
'use strict';

const V = require('./validate');

const withMetadata = (keys) => [...keys, 'metadata'];

// AppCreateMessage: name, environment_variables, relationships.space, lifecycle, metadata.
function appCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['name', 'environment_variables', 'relationships', 'lifecycle'])),
    ...V.relationships(b.relationships, ['space']), ...V.appName(b.name).message, ...V.metadata(b.metadata)];
  if (b.environment_variables !== undefined && b.environment_variables !== null && !V.isObject(b.environment_variables)) {
    out.push('Environment variables must be an object');
  }
  if (b.lifecycle !== undefined) out.push(...lifecycle(b.lifecycle));
  return out;
}

// LifecycleValidator with BuildpackLifecycleDataMessage: type buildpack (docker and cnb are
// switched off by their feature flags: the handler answers those), data an object whose
// buildpacks are an array of strings and stack a string.
function lifecycle(l) {
  if (!V.isObject(l)) return ['Lifecycle must be an object'];
  const out = [];
  if (l.type !== undefined && !['buildpack', 'docker', 'cnb'].includes(l.type)) out.push('Lifecycle type is not included in the list: buildpack, docker, cnb');
  if (!V.isObject(l.data)) return [...out, 'Lifecycle data must be an object'];
  const { buildpacks, stack } = l.data;
  if (buildpacks !== undefined && buildpacks !== null && !(Array.isArray(buildpacks) && buildpacks.every((x) => typeof x === 'string'))) {
    out.push('Lifecycle Buildpacks must be an array of strings');
  }
  if (stack !== undefined && stack !== null) out.push(...V.string('Lifecycle Stack', stack, { max: 4096 }));
  return out;
}

// RouteCreateMessage: host (≤ 63 characters of letters, digits, _ and -, or *), path (≤ 128,
// starting with /, not /, no ?), port 0-65535, relationships.space and .domain, options.
const HOST = /^([\w-]+|\*)?$/;
function routeCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['host', 'path', 'port', 'relationships', 'options'])), ...V.metadata(b.metadata)];
  if (b.host !== undefined && b.host !== null) {
    const h = V.string('Host', b.host, { max: 63 });
    out.push(...h);
    if (!h.length && !HOST.test(b.host)) out.push('Host must be either "*" or contain only alphanumeric characters, "_", or "-"');
  }
  if (b.path !== undefined && b.path !== null) {
    const p = V.string('Path', b.path, { max: 128 });
    out.push(...p);
    if (!p.length && !/^(\/.*|)$/s.test(b.path)) out.push('Path must begin with /');
    if (!p.length && b.path.includes('?')) out.push('Path cannot contain ?');
    if (b.path === '/') out.push('Path cannot be exactly /');
  }
  out.push(...V.integer('Port', b.port, { gte: 0, lte: 65535 }));
  if (b.relationships === undefined || b.relationships === null) out.push("Relationships can't be blank");
  out.push(...V.relationships(b.relationships, ['space', 'domain']));
  return out;
}

// ServiceInstanceCreateMessage and its managed form: type, name (a string, present; the
// model's 255), tags (strings, 2048 characters in all), parameters, relationships.
function serviceInstanceCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['type', 'name', 'relationships', 'parameters', 'tags'])), ...V.metadata(b.metadata)];
  if (!['managed', 'user-provided'].includes(b.type)) out.push("Type must be one of 'managed', 'user-provided'");
  out.push(...V.string('Name', b.name));
  if (b.name === undefined || b.name === null || (typeof b.name === 'string' && !b.name.trim())) out.push("Name can't be blank");
  if (b.tags !== undefined && b.tags !== null) {
    if (!Array.isArray(b.tags)) out.push('Tags must be an array');
    else if (b.tags.some((t) => typeof t !== 'string')) out.push('Tags must be a list of strings');
    else if (b.tags.join('').length > 2048) out.push('tags too_long');
  }
  if (b.parameters !== undefined && b.parameters !== null && !V.isObject(b.parameters)) out.push('Parameters must be an object');
  out.push(...V.relationships(b.relationships, ['space', 'service_plan']));
  if (!out.length && [...b.name].length > 255) out.push('name max_length');
  return out;
}

// ServiceCredentialBindingCreateMessage and its app/key forms: type, name, relationships
// (service_instance; app for an app binding), parameters, strategy.
function credentialBindingCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['type', 'strategy', 'name', 'relationships', 'parameters'])), ...V.metadata(b.metadata)];
  if (!['app', 'key'].includes(b.type)) return [...out, "Type must be 'app' or 'key'"];
  if (b.parameters !== undefined && b.parameters !== null && !V.isObject(b.parameters)) out.push('Parameters must be an object');
  if (b.strategy !== undefined && b.strategy !== null && !['single', 'multiple'].includes(b.strategy)) out.push("Strategy must be 'single' or 'multiple'");
  out.push(...V.relationships(b.relationships, b.type === 'app' ? ['service_instance', 'app'] : ['service_instance']));
  if (b.type === 'key') {
    out.push(...V.string('Name', b.name));
    if (typeof b.name !== 'string' || !b.name.trim()) out.push("Name can't be blank");
  } else if (b.name !== undefined && b.name !== null) out.push(...V.string('Name', b.name));
  // ServiceBinding's model (app binding names; a key's name the same, or its database column refuses it).
  if (!out.length && typeof b.name === 'string') {
    const kind = b.type === 'key' ? 'Key' : 'App';
    if ([...b.name].length > 255) out.push(`The binding name is invalid. ${kind} binding names must be less than 256 characters.`);
    else if (b.type === 'app' && b.name && !/^[\w-]+$/.test(b.name)) out.push('The binding name is invalid. Valid characters are alphanumeric, underscore, and dash.');
  }
  return out;
}

// PackageCreateMessage: type bits or docker, relationships.app, data (empty for bits).
function packageCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['relationships', 'type', 'data'])), ...V.metadata(b.metadata)];
  if (!['bits', 'docker'].includes(b.type)) out.push("Type must be one of 'bits, docker'");
  if (b.type === 'bits' && b.data !== undefined && b.data !== null && !(V.isObject(b.data) && !Object.keys(b.data).length)) {
    out.push('Data must be empty if provided for bits packages');
  }
  out.push(...V.relationships(b.relationships, ['app']));
  return out;
}

// BuildCreateMessage: package {guid}, staging sizes (integers > 0), lifecycle, env.
function buildCreate(b) {
  const out = [...V.unknownKeys(b, withMetadata(['staging_memory_in_mb', 'staging_disk_in_mb', 'staging_log_rate_limit_bytes_per_second',
    'environment_variables', 'lifecycle', 'package'])), ...V.metadata(b.metadata)];
  out.push(...V.integer('Staging disk in mb', b.staging_disk_in_mb, { gt: 0, lte: Infinity }));
  out.push(...V.integer('Staging memory in mb', b.staging_memory_in_mb, { gt: 0, lte: Infinity }));
  out.push(...V.integer('Staging log rate limit bytes per second', b.staging_log_rate_limit_bytes_per_second, { gte: -1, lte: 2 ** 63 - 1 }));
  const guid = V.isObject(b.package) ? b.package.guid : undefined;
  if (guid === undefined || guid === null || guid === '') out.push("Package guid can't be blank");
  else if (typeof guid !== 'string') out.push('Package guid must be a string');
  else if (guid.length > 200) out.push('Package guid must be between 1 and 200 characters');
  if (b.environment_variables !== undefined && b.environment_variables !== null && !V.isObject(b.environment_variables)) {
    out.push('Environment variables must be an object');
  }
  if (b.lifecycle !== undefined) out.push(...lifecycle(b.lifecycle));
  return out;
}

// ResourceMatchCreateMessage: 1-5000 resources, each {checksum: {value: SHA1}, size_in_bytes ≥ 0, mode octal}.
function resourceMatches(b) {
  const out = [...V.unknownKeys(b, ['resources'])];
  const r = b.resources;
  if (!Array.isArray(r)) return [...out, 'Resources must be an array'];
  if (!r.length) return [...out, 'Resources must have at least 1 resource'];
  if (r.length > 5000) return [...out, 'Resources array can have at most 5000 resources'];
  const pre = 'Resources array contains at least one resource with';
  const seen = new Set();
  for (const x of r) {
    const c = V.isObject(x) ? x.checksum : undefined;
    if (!V.isObject(c)) seen.add(`${pre} a non-object checksum`);
    else if (typeof c.value !== 'string') seen.add(`${pre} a non-string checksum value`);
    else if (c.value.length !== 40) seen.add(`${pre} a non-SHA1 checksum value`);
    const size = V.isObject(x) ? x.size_in_bytes : undefined;
    if (!Number.isInteger(size)) seen.add(`${pre} a non-integer size_in_bytes`);
    else if (size < 0) seen.add(`${pre} a negative size_in_bytes`);
    const mode = V.isObject(x) ? x.mode : undefined;
    if (mode !== undefined && mode !== null && typeof mode !== 'string') seen.add(`${pre} a non-string mode`);
    else if (typeof mode === 'string' && !/^[0-7]+$/.test(mode)) seen.add(`${pre} an incorrect mode`);
  }
  return [...out, ...seen];
}

module.exports = { appCreate, routeCreate, serviceInstanceCreate, credentialBindingCreate, packageCreate, buildCreate, resourceMatches };
