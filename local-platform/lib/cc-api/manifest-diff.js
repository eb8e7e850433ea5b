// manifest-diff.js — POST /v3/spaces/:guid/manifest_diff, which `cf push` calls to show what a
// push would change (cloud_controller_ng app/controllers/v3/space_manifests_controller.rb
// diff_manifest, app/actions/space_diff_manifest.rb): each application of the manifest against
// the app of that name as CC presents it (app/presenters/v3/app_manifest_presenter.rb, its web
// process merged in), key by key, as JSON-patch operations {op, path, was?, value?} under
// /applications/INDEX/KEY. As CC: only recognised keys; memory and disk_quota only inside
// `processes`; a replace of nothing is an add. Arrays compare element by element (CC's
// json-diff pairs elements by similarity; a changed element here is a remove and an add).
'use strict';

const { parseMegabytes } = require('../manifest');

// The manifest keys the local platform knows of AppManifestMessage.allowed_keys (dasherized).
const RECOGNIZED = ['buildpack', 'buildpacks', 'command', 'disk_quota', 'env', 'health-check-http-endpoint',
  'health-check-invocation-timeout', 'health-check-type', 'instances', 'memory', 'name', 'no-route', 'processes',
  'routes', 'services', 'stack', 'timeout'];
// CC's filter_manifest_app_hash: what of a process counts.
const PROCESS_KEYS = ['type', 'command', 'disk_quota', 'health-check-http-endpoint', 'health-check-invocation-timeout',
  'health-check-type', 'instances', 'memory', 'timeout'];
const mb = (n) => `${n}M`;

/** The app as CC's AppManifestPresenter shows it, with the web process's keys at the top. */
function presented(app, stackName) {
  const hc = app.healthCheck || { type: 'port' };
  const web = {
    type: 'web', instances: app.instances, memory: mb(app.memoryMb), disk_quota: mb(app.diskMb),
    'health-check-type': hc.type,
    ...(hc.type === 'http' ? { 'health-check-http-endpoint': hc.endpoint } : {}),
    ...(app.command ? { command: app.command } : {}),
  };
  const doc = {
    name: app.name,
    ...(app.buildpack ? { buildpacks: [app.buildpack] } : {}),
    stack: stackName,
    ...(Object.keys(app.env || {}).length ? { env: { ...app.env } } : {}),
    ...(app.services.length ? { services: [...app.services] } : {}),
    ...(app.routes.length ? {
      routes: app.routes.map((u) => ({ route: u, ...(app.routeOptions?.[u] ? { options: { ...app.routeOptions[u] } } : {}) })),
    } : { 'no-route': true }),
    processes: [web],
  };
  return { ...doc, ...web };
}

// memory, disk_quota in whole megabytes ("512M"), as CC's normalize_units; a bad unit stays.
function normalized(entry) {
  const out = { ...entry };
  const norm = (h) => {
    for (const k of ['memory', 'disk_quota', 'disk-quota']) {
      if (h[k] !== undefined) { try { h[k] = mb(parseMegabytes(h[k], k)); } catch { /* CC keeps the text */ } }
    }
    return h;
  };
  norm(out);
  if (Array.isArray(out.processes)) {
    out.processes = out.processes.map((p) => norm(Object.fromEntries(Object.entries(p || {}).filter(([k]) => PROCESS_KEYS.includes(k)))));
  }
  if (Array.isArray(out.services)) out.services = out.services.map((s) => (typeof s === 'string' ? s : { name: s?.name, ...(s?.parameters ? { parameters: s.parameters } : {}) }));
  return out;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON-patch operations turning `was` into `value`, paths relative to `at`. */
function diff(was, value, at = '') {
  if (same(was, value)) return [];
  if (isObject(was) && isObject(value)) {
    const ops = [];
    for (const k of Object.keys(was)) if (!(k in value)) ops.push({ op: 'remove', path: `${at}/${k}`, was: was[k] });
    for (const [k, v] of Object.entries(value)) {
      if (!(k in was)) ops.push({ op: 'add', path: `${at}/${k}`, value: v });
      else ops.push(...diff(was[k], v, `${at}/${k}`));
    }
    return ops;
  }
  if (Array.isArray(was) && Array.isArray(value)) {
    const ops = [];
    const n = Math.max(was.length, value.length);
    for (let i = n - 1; i >= value.length; i--) ops.push({ op: 'remove', path: `${at}/${i}`, was: was[i] });
    for (let i = 0; i < Math.min(was.length, value.length); i++) {
      if (isObject(was[i]) && isObject(value[i]) && (was[i].type ?? was[i].name) === (value[i].type ?? value[i].name)
        && (was[i].type ?? was[i].name) !== undefined) ops.push(...diff(was[i], value[i], `${at}/${i}`));
      else if (!same(was[i], value[i])) ops.push({ op: 'replace', path: `${at}/${i}`, was: was[i], value: value[i] });
    }
    for (let i = was.length; i < value.length; i++) ops.push({ op: 'add', path: `${at}/${i}`, value: value[i] });
    return ops;
  }
  return [{ op: was === undefined || was === null ? 'add' : 'replace', path: at, ...(was === undefined || was === null ? {} : { was }), value }];
}

// CC's remove_default_missing_fields: of a nested list (processes, routes), the elements and
// keys the manifest does not name are not a change.
const IDENTIFIERS = { processes: 'type', routes: 'route' };
function pruned(existing, key, value) {
  const id = IDENTIFIERS[key];
  return existing.filter((r) => value.some((v) => v && v[id] === r[id])).map((r) => {
    const given = value.find((v) => v[id] === r[id]);
    return Object.fromEntries(Object.entries(r).filter(([k]) => given[k] !== undefined));
  });
}

/** The diff document of manifest `entries` (parsed) against `apps` (platform state). */
function manifestDiff(entries, apps, stackName) {
  const out = [];
  entries.forEach((raw, index) => {
    const entry = normalized(raw);
    const existing = apps[entry.name] ? presented(apps[entry.name], stackName) : {};
    for (const [key, value] of Object.entries(entry)) {
      if (!RECOGNIZED.includes(key)) continue;
      let was = existing[key];
      const nested = Array.isArray(was) && was.length > 0 && key in IDENTIFIERS;
      if (nested && Array.isArray(value)) was = pruned(was, key, value);
      if (!nested && ['memory', 'disk_quota'].includes(key)) continue;
      for (const d of diff(was, value)) out.push({ ...d, path: `/applications/${index}/${key}${d.path}` });
    }
  });
  return { diff: out };
}

module.exports = { manifestDiff, presented };
