// html.js — the report page: one self-contained HTML file (no network): tables, the charts
// drawn in the browser by the inlined Vega-Embed, links to the SVG and CSV files.
'use strict';
const { STUDY } = require('./study.js');
const { ROUTER_CORES_WITHOUT_QUOTA } = require('../../../plans/plan.js');
const {
  capacityRows, comparisonRows, cpuLevelRows, cpuRows, efficiencyRows, environmentRows, groupRows, memoryNeededRows, roundRows, scaleStopRows,
} = require('./tables.js');
const { eventsHtml } = require('./event-html.js');

const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const fmt = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : Number(x).toFixed(d));
const pct = (x, d = 1) => (x === null || x === undefined ? '–' : fmt(100 * x, d));
const ci = (m, lo, hi, d = 1) => `${fmt(m, d)} <span class="ci">[${fmt(lo, d)}, ${fmt(hi, d)}]</span>`;

function table(cols, rows, cls = '') {
  if (!rows.length) return '<p class="none">no data</p>';
  const head = cols.map(([t]) => `<th>${esc(t)}</th>`).join('');
  const body = rows.map((r) => `<tr>${cols.map(([, f]) => `<td>${f(r)}</td>`).join('')}</tr>`).join('\n');
  return `<table class="${cls}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const series = (r) => esc(`${r.app}${r.variant && r.variant !== 'default' ? ` ${r.variant}` : ''}`);
const loadOf = (r) => esc(r.rate !== null && r.rate !== undefined ? `${r.loadgens} × ${r.rate} req/s` : `${r.loadgens} × ${r.parallel}`);

function groupsTable(a) {
  return table([
    ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', series], ['instances', (r) => r.instances],
    ['load (loadgens × parallel | rate)', loadOf], ['kind', (r) => esc(r.kind)], ['n', (r) => r.n],
    ['throughput req/s [95 % CI]', (r) => ci(r.throughput_rps, r.throughput_rps_ci_low, r.throughput_rps_ci_high)],
    ['mean ms', (r) => ci(r.mean_ms, r.mean_ms_ci_low, r.mean_ms_ci_high, 2)],
    ['p95 ms', (r) => ci(r.p95_ms, r.p95_ms_ci_low, r.p95_ms_ci_high, 2)],
    ['p99 ms', (r) => ci(r.p99_ms, r.p99_ms_ci_low, r.p99_ms_ci_high, 2)],
    ['errors %', (r) => pct(r.error_rate, 2)],
    ['CPU % [CI]', (r) => ci(r.cpu_used_pct, r.cpu_used_pct_ci_low, r.cpu_used_pct_ci_high)],
    ['memory MiB', (r) => fmt(r.mem_mb)], ['KiB per req/s', (r) => fmt(r.mem_kb_per_rps)],
    ['meets SLO', (r) => (r.slo_met === null ? '–' : r.slo_met ? 'yes' : '<span class="warn">no</span>')],
    ['rounds', (r) => esc(r.rounds)],
    ['excluded (flagged)', (r) => (r.excluded_rounds ? `<span class="bad">${esc(r.excluded_rounds)}</span>` : '')],
  ], groupRows(a));
}

function comparisonsTable(a) {
  return table([
    ['experiment', (r) => esc(r.experiment ?? '–')], ['instances', (r) => r.instances], ['load', loadOf],
    ['changed', (r) => esc(r.changed)], ['metric', (r) => esc(r.metric)],
    ['A', (r) => `${esc(r.a)} (n=${r.a_n})`], ['A mean [95 % CI]', (r) => ci(r.a_mean, r.a_ci_low, r.a_ci_high, 2)],
    ['B', (r) => `${esc(r.b)} (n=${r.b_n})`], ['B mean [95 % CI]', (r) => ci(r.b_mean, r.b_ci_low, r.b_ci_high, 2)],
    ['B − A', (r) => `${fmt(r.diff_pct)} %`], ['Welch p', (r) => fmt(r.p_value, 4)],
    ['verdict', (r) => `<span class="${r.verdict === 'significant' ? 'sig' : 'noise'}">${esc(r.verdict)}</span>`],
  ], comparisonRows(a));
}

function roundsTable(a) {
  return table([
    ['round', (r) => r.round], ['status', (r) => esc(r.status)], ['label', (r) => `<code>${esc(r.label ?? '')}</code>`],
    ['req/s', (r) => fmt(r.throughput_rps)], ['p95 ms', (r) => fmt(r.p95_ms, 2)], ['errors %', (r) => pct(r.error_rate, 2)],
    ['CPU cores', (r) => fmt(r.cpu_used_cores, 2)], ['loadgen CPU %', (r) => pct(r.loadgen_cpu_max)],
    ['late %', (r) => pct(r.late_fraction, 2)], ['restarts', (r) => r.instance_restarts],
    ['validity', (r) => (r.trusted ? (r.flags ? `<span class="warn">${esc(r.flags)}</span>` : '<span class="ok">ok</span>') : `<span class="bad">${esc(r.flags)}</span>`)],
  ], roundRows(a), 'rounds');
}

/** A JSON object (environment, versions) as key = value lines; nested objects as dotted keys. */
function keyValues(json) {
  let obj;
  try { obj = typeof json === 'string' ? JSON.parse(json) : json; } catch { return esc(json); }
  const lines = [];
  const walk = (o, prefix) => {
    for (const [k, v] of Object.entries(o ?? {})) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v, `${prefix}${k}.`);
      else lines.push(`<span class="k">${esc(prefix + k)}</span> = ${esc(Array.isArray(v) ? v.join(', ') : v)}`);
    }
  };
  walk(obj, '');
  return lines.length ? `<div class="kv">${lines.join('<br>')}</div>` : '–';
}

const seriesOf = (r) => esc(`${r.app}${r.variant && r.variant !== 'default' ? ` ${r.variant}` : ''}`);

function cpuTableHtml(a) {
  const rows = cpuRows(a);
  const assumed = a.cpuTable.find((c) => c.study_assumed);
  return `${table([
    ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', series], ['instances', (r) => r.instances], ['n', (r) => r.n],
    ['max CPU used % (peak) [95 % CI]', (r) => ci(r.max_cpu_used_pct, r.ci_low, r.ci_high)], ['mean CPU %', (r) => fmt(r.mean_cpu_used_pct)],
    ['available % (quota / entitlement)', (r) => (r.cpu_available_pct === null ? '– <span class="ci">(not known on CF)</span>' : `${fmt(r.cpu_available_pct)} <span class="ci">${esc(r.available_basis)}</span>`)],
    ['utilisation %', (r) => fmt(r.utilisation_pct)],
    ['available % (study notion)', (r) => `${fmt(r.study_available_pct)} <span class="ci">${esc(r.study_basis ?? '')}</span>`],
    ['utilisation % (study notion)', (r) => fmt(r.study_utilisation_pct)],
    ['study: max used / available / utilisation %', (r) => (r.published_max_cpu_pct === null ? '–'
      : `${r.published_max_cpu_pct} / ${r.published_available_pct} / ${r.published_utilisation_pct}`)],
  ], rows)}
<p>Peak: per round the highest stats sample of each instance, summed over the instances (the study's "Max CPU Usage"); the row is
the load step with the highest peak. The study's notion of available CPU: the cell's cores for each Java instance, one core for each
Node.js instance (${esc(STUDY.table71.cite)}; locally the host's cores stand for the cell's)${assumed
  ? `. <b>Assumption:</b> the cell's cores are not known (not observable on CF, not recorded by the round): ${esc(assumed.study_basis)}` : ''}. Study values: ${esc(STUDY.table71.cite)}.</p>`;
}

function procedureHtml(a) {
  const stops = scaleStopRows(a);
  const cap = capacityRows(a);
  const levels = cpuLevelRows(a);
  const out = [];
  if (levels.length) {
    out.push(`<h2>Throughput at 100–400 % CPU (study Fig. 7.5, 7.6)</h2>${table([
      ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', seriesOf], ['instances', (r) => r.instances],
      ['CPU %', (r) => r.cpu_pct], ['throughput req/s (interpolated)', (r) => fmt(r.throughput_rps)]], levels)}`);
  }
  const mem = memoryNeededRows(a);
  if (mem.length) {
    out.push(`<h2>Memory needed (study §4.2.2, Fig. 4.3)</h2>${table([
      ['experiment', (r) => esc(r.experiment)], ['app', (r) => esc(r.app)], ['instances', (r) => r.instances], ['load', (r) => r.load],
      ['memory per instance MiB', (r) => esc(r.sizes_mib)], ['throughput req/s', (r) => esc(r.throughput_rps)],
      ['memory needed MiB', (r) => `${r.memory_needed_mib}${r.largest_tried ? ' <span class="warn">(the largest tried: raise further)</span>' : ''}`]], mem)}
<p>The smallest memory that no larger one beats: no significantly higher throughput, no significantly lower p95 (as the comparisons).</p>`);
  }
  if (stops.length) {
    out.push(`<h2>Scale until the SLO: where it stopped (study §7.3)</h2>${table([
      ['experiment', (r) => esc(r.experiment)], ['app / variant', seriesOf], ['stopped at instances', (r) => r.instances],
      ['loadgens', (r) => r.loadgens], ['stop rule', (r) => `<code>${esc(r.stop)}</code>`], ['reason', (r) => esc(r.reason)],
      ['study stopped at', (r) => (r.published_instances === null ? '–' : `${r.published_instances} instances: ${esc(r.published_reason)}`)]], stops)}
<p>Study values: ${esc(STUDY.scaleStops.cite)}.</p>`);
  }
  if (cap.length) {
    out.push(`<h2>Capacity per instance count</h2>${table([
      ['experiment', (r) => esc(r.experiment)], ['app / variant', seriesOf], ['instances', (r) => r.instances],
      ['capacity req/s', (r) => fmt(r.capacity_rps)],
      ['soak', (r) => (r.confirmed ? '<span class="ok">confirmed</span>' : '<span class="warn">not confirmed</span>')], ['reason', (r) => esc(r.reason)]], cap)}`);
  }
  return out.join('\n');
}

/** The router-load rule of study §7.3 (Java stops when the router reaches 70 % load). */
function routerNote(a) {
  const local = a.rounds.filter((r) => r.platform === 'local' && Number.isFinite(r.environment?.router_cpu_cores));
  const top = local.reduce((m, r) => (!m || r.environment.router_cpu_cores > m.environment.router_cpu_cores ? r : m), null);
  const localNote = top ? `<p><b>Router load (local).</b> The local router (HAProxy, in its own cgroup) used at most
${fmt(top.environment.router_cpu_cores, 3)} cores over a round's measured window (round ${top.round_id}; every round: rounds CSV
<code>router_cpu_cores</code>), against the ${fmt(Number(top.environment.host_cpus) || null, 0)} cores of this machine: read it before
blaming the app (study §7.3 checked the router's load). Scale-until-SLO stops when it reaches <code>scale.routerLoad</code>
(70 %, the study's) of ${routerHas(top.environment.router_cpu_quota_cores)} (stop <code>router-load</code>).</p>` : '';
  if (!a.platforms.includes('cf')) return localNote;
  return `${localNote}<p><b>Router load.</b> Study §7.3 stopped scaling Java when the router reached its limit (70 % load). On Cloud Foundry the
Gorouter's CPU cannot be observed by an app developer, so this report cannot apply that rule to CF rounds: scale-until-SLO uses its
proxy instead (one more instance gave no more throughput).</p>`;
}

/** What the router-load rule takes as the router's CPU (procedures.js aggregate). */
function routerHas(quota) {
  return Number.isFinite(quota) && quota > 0 ? `the router cgroup's quota, ${fmt(quota, 2)} cores`
    : `${ROUTER_CORES_WITHOUT_QUOTA} core(s) (the router's cgroup has no quota)`;
}

function studyHtml() {
  const p = STUDY.proxyCap;
  return `<h2>The study beside us</h2>
<ul><li>Proxy cap (${esc(p.cite)}): each TLS-terminating HAProxy handled at most about ${p.perProxyRps} req/s until its CPU hit the
ceiling; ${p.proxies} of them capped the landscape at about ${p.landscapeRps} req/s, while Gorouter handled ${p.gorouterRps} req/s.
Keep-alive connections lifted the cap (study §3.4.1).</li>
<li>Table 7.1 (${esc(STUDY.table71.cite)}): in the CPU utilisation table, beside ours.</li>
<li>Scale until the SLO (${esc(STUDY.scaleStops.cite)}): Java stopped at ${STUDY.scaleStops.rows[0].instances} instances, Node.js at
${STUDY.scaleStops.rows[1].instances}; beside ours where the experiment recorded its stop.</li>
<li>Fig. 7.1 (${esc(STUDY.fig71Slo.cite)}): load steps with a mean end-to-end time under ${STUDY.fig71Slo.thresholdMs} ms and at most 100 % CPU.</li></ul>`;
}

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:8px 0 24px;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.ci{color:#777}.bad{color:#b00020;font-weight:600}
.warn{color:#a66a00}.ok{color:#2a7d2a}.sig{color:#b00020;font-weight:600}.noise{color:#777}.chart{display:inline-block;margin:8px 16px 16px 0;vertical-align:top}
.none{color:#777}code{font-size:11px}.kv{font:11px monospace;text-align:left;white-space:nowrap}.k{color:#555}`;

/** The whole page. meta: {title, selection, generatedAt, staleNote (data.js staleLine)}. */
function htmlPage(a, charts, meta, bundles) {
  const specs = JSON.stringify(charts.map((c) => ({ name: c.name, spec: c.spec }))).replace(/</g, '\\u003c');
  const chartDivs = charts.map((c) => `<div class="chart"><div id="chart-${c.name}"></div><a href="charts/${c.name}.svg">SVG</a></div>`).join('\n');
  const trustedN = a.rounds.filter((r) => r.trusted).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(meta.title)}</title><style>${CSS}</style>
${bundles.map((b) => `<script>${b}</script>`).join('\n')}
</head><body>
<h1>${esc(meta.title)}</h1>
<p>Selection: ${esc(meta.selection)}. ${a.rounds.length} round(s), ${trustedN} without validity problems; ${a.groups.length} group(s). Generated ${esc(meta.generatedAt)}.</p>
<p class="stale">${meta.staleNote ? `Plan check: ${esc(meta.staleNote)}.` : 'Plan check: none (no plan file for this selection): rounds run under other plan parameters are not told apart.'}</p>
<p><b>Method.</b> A group is the set of repetitions of one configuration (experiment, app, variant, instances, load).
Rounds with a validity problem (red in the rounds table) are left out of the groups and listed as excluded.
Every figure is the mean over its n repetitions with a 95 % confidence interval from Student's t (n − 1 df);
with n = 1 no interval exists (–). Two groups that differ in one thing only (the app or the variant) are compared
with Welch's t-test; a difference counts as <span class="sig">significant</span> only when p &lt; 0.05 and the
intervals do not overlap, otherwise it is <span class="noise">within noise</span>. Latencies exclude the warm-up${a.noWarmup.length
  ? `; ${a.noWarmup.length} round(s) ran without one (warm-up 0, no steady-state gate, often on purpose): their figures include the
start (round ${esc(a.noWarmup.slice(0, 20).join(', '))}${a.noWarmup.length > 20 ? ', …' : ''})` : ''}.
CPU is in % of one core summed over the app's instances (CF's <code>cpu</code>), memory is the mean summed over instances.
A group meets the SLO when its ${esc(a.slo.metric)} latency is at most ${a.slo.thresholdMs} ms (the plan's <code>slo</code>, else the default).
Placement: the rounds CSV lists the cells (hosts) the app instances and the loadgens ran on; on CF a loadgen on an app
instance's cell is flagged (they share its CPU); locally every process runs on this one machine.</p>
<h2>Charts</h2>
<div id="charts">${chartDivs || '<p class="none">no chart has data</p>'}</div>
<h2>Comparisons</h2>${comparisonsTable(a)}
<h2>Groups</h2>${groupsTable(a)}
<h2>Scaling efficiency X(k) / (k · X(1))</h2>${table([
  ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', series], ['instances', (r) => r.instances], ['n', (r) => r.n],
  ['peak req/s', (r) => fmt(r.peak_rps)], ['peak req/s at 1', (r) => fmt(r.peak_rps_1)],
  ['efficiency [95 % CI]', (r) => ci(r.efficiency, r.ci_low, r.ci_high, 3)]], efficiencyRows(a))}
<h2>CPU utilisation (study Table 7.1)</h2>${cpuTableHtml(a)}
${procedureHtml(a)}
${eventsHtml(a)}
${routerNote(a)}
${studyHtml()}
<h2>Rounds and validity</h2>${roundsTable(a)}
<h2>Environment</h2>${table([
  ['platform', (r) => esc(r.platform)], ['git revision', (r) => `<code>${esc(r.git_rev ?? '–')}</code>`],
  ['versions', (r) => keyValues(r.versions)], ['environment', (r) => keyValues(r.environment)],
  ['rounds', (r) => esc(r.rounds)]], environmentRows(a))}
${a.platforms.includes('cf') ? `<p><b>App databases on Cloud Foundry.</b> <code>postgresql_results_db</code> is the results
database's server (locally the app databases live on that server too). On CF an app's database is a service instance only the
app reaches, so its PostgreSQL server version is not recorded for CF rounds.</p>` : ''}
<p>CSV: ${['rounds', 'groups', 'comparisons', 'scaling-efficiency', 'cpu-utilisation', 'throughput-at-cpu', 'memory-needed', 'scale-stops', 'capacity', 'latency-split', 'latency-split-rounds', 'environment',
  'round-seconds', 'round-instances', 'memory-first-gc', ...(a.eventSummary.length ? ['event-summary', 'event-stages', 'event-traffic'] : [])]
  .map((n) => `<a href="csv/${n}.csv">${n}</a>`).join(' · ')}</p>
<script>
const CHARTS = ${specs};
Promise.all(CHARTS.map((c) => vegaEmbed('#chart-' + c.name, c.spec, { actions: false, renderer: 'svg' })))
  .then(() => { document.body.dataset.chartsRendered = String(CHARTS.length); })
  .catch((e) => { console.error('chart failed: ' + e.message); document.body.dataset.chartsRendered = 'error'; });
</script>
</body></html>
`;
}

module.exports = { keyValues, htmlPage };
