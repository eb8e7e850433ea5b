// route-options.js — per-route options (docs/cf-platform.md §3, §11: manifest
// `routes[].options.loadbalancing`; `cf update-route DOMAIN [--hostname H] -o
// loadbalancing=ALGO | -r loadbalancing`), as far as the local router can honour them.
// Gorouter knows round-robin, least-connection and hash; HAProxy does the first two here
// (`balance roundrobin | leastconn`). Without the option Gorouter uses its deployment-wide
// `router.balancing_algorithm`, round-robin by default (routing-release 0.140.0), so does
// the local router. Locally all routes of an app share one backend, hence one algorithm.
'use strict';

const OPTION_NAMES = ['loadbalancing'];
const DEFAULT_LOADBALANCING = 'round-robin';
// Gorouter's algorithm → HAProxy's `balance`.
const HAPROXY_BALANCE = { 'round-robin': 'roundrobin', 'least-connection': 'leastconn' };

function checkLoadbalancing(value, where) {
  if (HAPROXY_BALANCE[value]) return value;
  if (value === 'hash') throw new Error(`${where}: hash is not supported by the local platform (round-robin or least-connection)`);
  throw new Error(`${where} must be round-robin or least-connection (CF also knows hash), got "${value}"`);
}

// Manifest `options:` of one route → {loadbalancing} (only what is set).
function manifestRouteOptions(options, where) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw new Error(`${where}.options must be a mapping`);
  const out = {};
  for (const [k, v] of Object.entries(options)) {
    if (!OPTION_NAMES.includes(k)) throw new Error(`${where}.options.${k} is not a route option the local platform knows (${OPTION_NAMES.join(', ')})`);
    out[k] = checkLoadbalancing(String(v), `${where}.options.loadbalancing`);
  }
  return out;
}

// The algorithm of an app's backend: its routes' option, else the default. Routes that
// disagree cannot share the one backend.
function appLoadbalancing(app) {
  const algos = new Set((app.routes || []).map((r) => (app.routeOptions?.[r]?.loadbalancing) || DEFAULT_LOADBALANCING));
  if (algos.size > 1) throw new Error(`routes of ${app.name} ask for different load balancing (${[...algos].join(', ')}): the local router has one backend per app`);
  return algos.size ? [...algos][0] : DEFAULT_LOADBALANCING;
}

function haproxyBalance(algo) { return HAPROXY_BALANCE[algo || DEFAULT_LOADBALANCING]; }

// `-o KEY=VALUE`... and `-r KEY`... applied to one route's options; returns the new options.
function updatedOptions(current, set = [], remove = []) {
  const out = { ...current };
  for (const pair of set) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new Error(`Route option '${pair}' was specified incorrectly. Please use key-value pair format key=value.`);
    const [k, v] = [pair.slice(0, i), pair.slice(i + 1)];
    if (!OPTION_NAMES.includes(k)) throw new Error(`route option "${k}" is not one the local platform knows (${OPTION_NAMES.join(', ')})`);
    if (remove.includes(k)) throw new Error(`route option "${k}" is both set (-o) and removed (-r)`);
    out[k] = checkLoadbalancing(v, `-o ${k}`);
  }
  for (const k of remove) {
    if (!OPTION_NAMES.includes(k)) throw new Error(`route option "${k}" is not one the local platform knows (${OPTION_NAMES.join(', ')})`);
    delete out[k];
  }
  return out;
}

// A push keeps the options of routes the app had (as a CF route keeps them), unless the
// manifest sets them anew.
function pushedRouteOptions(old, spec) {
  const out = {};
  for (const r of spec.routes) {
    const o = spec.routeOptions[r] || old?.routeOptions?.[r];
    if (o && Object.keys(o).length) out[r] = o;
  }
  appLoadbalancing({ ...spec, routeOptions: out });
  return out;
}

// `update-route DOMAIN [--hostname H] [--path P] -o K=V... -r K...` against the apps:
// → {app, url, routeOptions (the app's new map)}. Errors read like the cf CLI's.
function planRouteUpdate(apps, { domain, hostname = '', path = '', options = [], removeOptions = [] }) {
  const url = (hostname ? `${hostname}.${domain}` : domain).toLowerCase();
  if (path && path !== '/') throw new Error(`route paths are not supported by the local platform (${url}${path})`);
  if (!options.length && !removeOptions.length) throw new Error(`No options were specified for the update of the Route ${url} (-o loadbalancing=ALGO or -r loadbalancing)`);
  const app = apps.find((a) => a.routes.includes(url));
  if (!app) throw new Error(`Route with host '${hostname}', domain '${domain}', and path '/' not found.`);
  const routeOptions = { ...app.routeOptions };
  const next = updatedOptions(routeOptions[url] || {}, options, removeOptions);
  if (Object.keys(next).length) routeOptions[url] = next;
  else delete routeOptions[url];
  appLoadbalancing({ ...app, routeOptions });
  return { app, url, routeOptions };
}

module.exports = { pushedRouteOptions, planRouteUpdate, manifestRouteOptions, appLoadbalancing, haproxyBalance, updatedOptions, checkLoadbalancing, DEFAULT_LOADBALANCING };
