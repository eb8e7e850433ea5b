// validate.js — the checks of Cloud Controller's request messages (cloud_controller_ng
// app/messages/*: BaseMessage, validators.rb, Rails' numericality), with their messages,
// so every request is refused whole before it changes saved state (docs/cf-platform.md §17).
// Each returns a list of problems ("Instances must be an integer"); [] when fine.
'use strict';

const { MAX_DB_INT } = require('../quota');

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// BaseMessage's NoAdditionalKeysValidator: "Unknown field(s): 'a', 'b'".
function unknownKeys(body, allowed) {
  const extra = Object.keys(isObject(body) ? body : {}).filter((k) => !allowed.includes(k));
  return extra.length ? [`Unknown field(s): '${extra.join("', '")}'`] : [];
}

// Rails' numericality with only_integer: label, value, {gte, gt, lte}; null/undefined pass
// (allow_nil), as the messages CC validates with it.
function integer(label, v, { gte, gt, lte = MAX_DB_INT } = {}) {
  if (v === undefined || v === null) return [];
  if (typeof v === 'boolean' || (typeof v !== 'number' && !(typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)))) return [`${label} is not a number`];
  const n = Number(v);
  if (!Number.isInteger(n)) return [`${label} must be an integer`];
  if (gte !== undefined && n < gte) return [`${label} must be greater than or equal to ${gte}`];
  if (gt !== undefined && n <= gt) return [`${label} must be greater than ${gt}`];
  if (n > lte) return [`${label} must be less than or equal to ${lte}`];
  return [];
}

// validators.rb EnvironmentVariablesStringValuesValidator (`var` of
// PATCH /v3/apps/:guid/environment_variables; `env` of a manifest).
function environmentVariables(label, vars) {
  if (!isObject(vars)) return [`${label} must be an object`];
  const problems = [];
  for (const [k, v] of Object.entries(vars)) {
    if (!k.length) problems.push(`${label} key must be a minimum length of 1`);
    else if (/^VCAP_/i.test(k)) problems.push(`${label} cannot start with VCAP_`);
    else if (/^VMC/i.test(k)) problems.push(`${label} cannot start with VMC_`);
    else if (/^PORT$/i.test(k)) problems.push(`${label} cannot set PORT`);
    else if (v !== null && typeof v !== 'string') problems.push(`Non-string value in environment variable for key '${k}', value '${JSON.stringify(v)}'`);
  }
  return problems;
}

const HEALTH_CHECK_TYPES = ['port', 'process', 'http'];

// ProcessUpdateMessage's health_check / readiness_health_check: {type, data: {timeout,
// invocation_timeout, interval, endpoint}}. prefix: "Health check" or "Readiness health check".
function healthCheck(prefix, hc, { timeout = true } = {}) {
  if (hc === undefined || hc === null) return [];
  if (!isObject(hc)) return [`${prefix} must be an object`];
  const problems = [];
  if ('type' in hc && !HEALTH_CHECK_TYPES.includes(hc.type)) problems.push(`${prefix} type must be "port", "process", or "http"`);
  const data = hc.data === undefined || hc.data === null ? {} : hc.data;
  if (!isObject(data)) return [...problems, `${prefix} data must be an object`];
  if (timeout) problems.push(...integer(`${prefix} timeout`, data.timeout, { gte: 1 }));
  problems.push(...integer(`${prefix} invocation timeout`, data.invocation_timeout, { gte: 1 }));
  problems.push(...integer(`${prefix} interval`, data.interval, { gte: 1 }));
  const ep = data.endpoint;
  if (ep !== undefined && ep !== null) {
    if (typeof ep !== 'string' || ep.length > 255) problems.push(`${prefix} endpoint is too long (maximum is 255 characters)`);
    else if (!/^\/[^\s?#]*(\?[^\s#]*)?$/.test(ep)) problems.push(`${prefix} endpoint must be a valid URI path`);
  }
  return problems;
}

module.exports = { isObject, unknownKeys, integer, environmentVariables, healthCheck, HEALTH_CHECK_TYPES, MAX_DB_INT };
