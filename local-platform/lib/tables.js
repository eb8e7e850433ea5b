// tables.js — the human-readable text of `cfl status` and of an app's summary, laid out like
// the cf CLI's tables.
'use strict';

const { appLoadbalancing, DEFAULT_LOADBALANCING } = require('./route-options');

const MB = 1024 * 1024;

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c === r.length - 1 ? String(v) : String(v).padEnd(widths[c] + 3))).join('').trimEnd()).join('\n');
}

function size(bytes) {
  if (bytes >= 1024 * MB) return `${(bytes / 1024 / MB).toFixed(1).replace(/\.0$/, '')}G`;
  if (bytes >= MB) return `${(bytes / MB).toFixed(1).replace(/\.0$/, '')}M`;
  return `${Math.round(bytes / 1024)}K`;
}

function running(instances) { return instances.filter((i) => i.state === 'RUNNING').length; }

// Each route with its options the way `cf routes` prints them: `host {loadbalancing=...}`.
function routesText(app) {
  return app.routes.map((r) => {
    const o = Object.entries(app.routeOptions?.[r] || {}).map(([k, v]) => `${k}=${v}`);
    return o.length ? `${r} {${o.join(', ')}}` : r;
  }).join(', ');
}

// The algorithm the router uses for the app's routes.
function loadbalancingText(app) {
  if (!app.routes.length) return '-';
  const algo = appLoadbalancing(app);
  const set = app.routes.some((r) => app.routeOptions?.[r]?.loadbalancing);
  return set || algo !== DEFAULT_LOADBALANCING ? algo : `${algo} (router default)`;
}

function appSummary(app, instances, cpuQuota) {
  const head = [
    `Showing health and status for app ${app.name} in org local / space local as admin...`, '',
    table([
      ['name:', app.name], ['requested state:', app.state.toLowerCase()], ['routes:', routesText(app)],
      ['load balancing:', loadbalancingText(app)], ['buildpacks:', app.buildpack], ['guid:', app.guid],
    ]), '',
    table([
      ['type:', 'web'], ['instances:', `${running(instances)}/${app.instances}`], ['memory usage:', `${app.memoryMb}M`],
      ['cpu quota:', cpuQuota === null ? 'none' : `${cpuQuota.toFixed(3)} cores`],
    ]),
  ];
  const rows = [['', 'state', 'since', 'cpu', 'memory', 'disk', 'details']];
  for (const i of instances) {
    const u = i.usage || { cpu: 0, mem: 0, disk: 0 };
    rows.push([`#${i.index}`, i.state.toLowerCase(), new Date(i.since).toISOString().replace(/\.\d+Z$/, 'Z'),
      `${(u.cpu * 100).toFixed(1)}%`, `${size(u.mem)} of ${app.memoryMb}M`, `${size(u.disk)} of ${size(app.diskMb * MB)}`,
      i.crashCount ? `crashes: ${i.crashCount}` : '']);
  }
  return `${head.join('\n')}\n${instances.length ? table(rows) : 'There are no running instances of this process.'}`;
}

module.exports = { appSummary, table };
