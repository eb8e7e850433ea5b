// validate.js — the checks of Cloud Controller's request messages (cloud_controller_ng
// app/messages/*: BaseMessage, validators.rb, Rails' numericality, MetadataValidator) and of
// its models' names, with their messages, so every request is refused whole before it changes
// saved state (docs/cf-platform.md §17, §23).
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
// (allow_nil), as the messages CC validates with it. A string of digits is a number ("3" is 3,
// Sequel stores it as such), a decimal one is not an integer, anything else is not a number
// (docs/cf-platform.md §23).
const RAILS_INTEGER = /^[+-]?\d+$/;
const RAILS_DECIMAL = /^[+-]?\d+\.?\d*(e|e[+-])?\d+$/;
function integer(label, v, { gte, gt, lte = MAX_DB_INT } = {}) {
  if (v === undefined || v === null) return [];
  let n;
  if (typeof v === 'number' && Number.isFinite(v)) n = v;
  else if (typeof v === 'string' && RAILS_INTEGER.test(v)) n = Number(v);
  else if (typeof v === 'string' && RAILS_DECIMAL.test(v)) return [`${label} must be an integer`];
  else return [`${label} is not a number`];
  if (!Number.isInteger(n)) return [`${label} must be an integer`];
  if (gte !== undefined && n < gte) return [`${label} must be greater than or equal to ${gte}`];
  if (gt !== undefined && n <= gt) return [`${label} must be greater than ${gt}`];
  if (n > lte) return [`${label} must be less than or equal to ${lte}`];
  return [];
}

// validators.rb StringValidator and Rails' length: "Name must be a string", "Name is too
// long (maximum is 255 characters)". Ruby counts characters, not UTF-16 units.
function string(label, v, { max, allowNil = false } = {}) {
  if ((v === undefined || v === null) && allowNil) return [];
  if (typeof v !== 'string') return [`${label} must be a string`];
  if (max !== undefined && [...v].length > max) return [`${label} is too long (maximum is ${max} characters)`];
  return [];
}

// Ruby's String#strip, as CC's strip_attributes applies it to names: ASCII whitespace and NUL
// at both ends.
const rubyStrip = (s) => s.replace(/^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g, '');
// AppModel::APP_NAME_REGEX, /\A[[:alnum:][:punct:][:print:]]+\Z/: printable characters only
// (no control characters, line or paragraph separators, unassigned code points), \Z letting
// one final newline through.
const PRINTABLE = /^[^\p{Cc}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]+\n?$/u;

// An app's name as AppCreateMessage and then AppModel check it: the message's problems, else the
// model's in Sequel's words ("name presence", "name format"), else none; name: the stripped
// name CC saves.
function appName(v) {
  const message = string('Name', v, { max: 255 });
  if (message.length) return { message, model: [], name: null };
  const name = rubyStrip(v);
  const model = [...(name ? [] : ['name presence']), ...(PRINTABLE.test(name) ? [] : ['name format'])];
  return { message: [], model, name };
}

// validators.rb ToOneRelationshipValidator and GuidValidator: exactly {data: {guid}}, a guid
// of 1-200 characters.
function toOne(attribute, rel) {
  const label = attribute[0].toUpperCase() + attribute.slice(1);
  const ok = isObject(rel) && Object.keys(rel).join() === 'data'
    && (rel.data === null || (isObject(rel.data) && Object.keys(rel.data).join() === 'guid'));
  if (!ok) return [`${label} must be structured like this: "${attribute}: {"data": {"guid": "valid-guid"}}"`];
  const guid = rel.data && rel.data.guid;
  if (rel.data === null) return [];
  if (typeof guid !== 'string') return [`${label} guid must be a string`];
  if (!guid.length || guid.length > 200) return [`${label} guid must be between 1 and 200 characters`];
  return [];
}

// validators.rb RelationshipValidator over a message's Relationships (each name required, no
// other keys), its problems prefixed "Relationships ".
function relationships(rels, names) {
  if (!isObject(rels)) return ["Relationships 'relationships' is not an object"];
  if (!Object.keys(rels).length) return ["Relationships 'relationships' must include one or more valid relationships"];
  const inner = [...unknownKeys(rels, names)];
  for (const n of names) {
    if (rels[n] === undefined || rels[n] === null) inner.push(`${n[0].toUpperCase()}${n.slice(1).replace(/_/g, ' ')} can't be blank`);
    else inner.push(...toOne(n, rels[n]));
  }
  return inner.map((m) => `Relationships ${m}`);
}

// MetadataValidator and MetadataValidatorHelper: labels and annotations, each an object; a
// label's key (a name up to 63 characters after an optional DNS prefix up to 253) and value
// (up to 63) of [A-Za-z0-9_.-] with letters or digits at both ends; an annotation's value up
// to 5000 characters.
const META_CHARS = /^[A-Za-z0-9_.-]*$/;
const META_ENDS = /^[A-Za-z0-9](.*[A-Za-z0-9])?$/s;
function metadataPart(part) {
  const s = String(part);
  if (!META_CHARS.test(s)) return `'${s}' contains invalid characters`;
  if (!META_ENDS.test(s)) return `'${s}' starts or ends with invalid characters`;
  if (s.length > 63) return `'${s.slice(0, 8)}...' is greater than 63 characters`;
  return null;
}
function metadataKey(key) {
  const parts = String(key).split('/');
  if (!key.length || !parts[parts.length - 1].length) return 'key cannot be empty string';
  if (parts.length > 2) return "key has more than one '/'";
  if (parts.length === 2 && (parts[0].length > 253 || !/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(parts[0]))) {
    return `prefix '${parts[0]}' must be in valid dns format`;
  }
  return metadataPart(parts[parts.length - 1]);
}
function metadata(m) {
  if (m === undefined) return [];
  if (!isObject(m)) return ['Metadata must be an object'];
  const out = [];
  const extra = Object.keys(m).filter((k) => k !== 'labels' && k !== 'annotations');
  if (extra.length) out.push(`Metadata has unexpected field(s): ${extra.map((k) => `'${k}'`).join(' ')}`);
  if (m.labels !== undefined && m.labels !== null) {
    if (!isObject(m.labels)) out.push("Metadata 'labels' is not an object");
    else {
      for (const [k, v] of Object.entries(m.labels)) {
        const ke = metadataKey(k);
        if (ke) out.push(`Metadata label key error: ${ke}`);
        const ve = v === null || v === '' ? null : metadataPart(v);
        if (ve) out.push(`Metadata label value error: ${ve}`);
      }
    }
  }
  if (m.annotations !== undefined && m.annotations !== null) {
    if (!isObject(m.annotations)) out.push("Metadata 'annotations' is not an object");
    else {
      for (const [k, v] of Object.entries(m.annotations)) {
        const ke = metadataKey(k);
        if (ke && v !== null && v !== '') out.push(`Metadata annotation key error: ${ke}`);
        if (v !== null && String(v).length > 5000) out.push(`Metadata annotation value error: '${String(v).slice(0, 8)}...' is greater than 5000 characters`);
      }
    }
  }
  return out;
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

module.exports = {
  isObject, unknownKeys, integer, string, rubyStrip, appName, toOne, relationships, metadata, environmentVariables, healthCheck,
  HEALTH_CHECK_TYPES, MAX_DB_INT,
};
