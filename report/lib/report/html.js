// html.js — the report page: one self-contained HTML file (no network): tables, the charts
// drawn in the browser by the inlined Vega-Embed, links to the SVG and CSV files.
import { comparisonRows, cpuRows, efficiencyRows, environmentRows, groupRows, roundRows } from './tables.js';

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

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:8px 0 24px;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.ci{color:#777}.bad{color:#b00020;font-weight:600}
.warn{color:#a66a00}.ok{color:#2a7d2a}.sig{color:#b00020;font-weight:600}.noise{color:#777}.chart{display:inline-block;margin:8px 16px 16px 0;vertical-align:top}
.none{color:#777}code{font-size:11px}`;

/** The whole page. meta: {title, selection, generatedAt, staleNote (data.js staleLine)}. */
export function htmlPage(a, charts, meta, bundles) {
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
intervals do not overlap, otherwise it is <span class="noise">within noise</span>. Latencies exclude the warm-up.
CPU is in % of one core summed over the app's instances (CF's <code>cpu</code>), memory is the mean summed over instances.</p>
<h2>Charts</h2>
<div id="charts">${chartDivs || '<p class="none">no chart has data</p>'}</div>
<h2>Comparisons</h2>${comparisonsTable(a)}
<h2>Groups</h2>${groupsTable(a)}
<h2>Scaling efficiency X(k) / (k · X(1))</h2>${table([
    ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', series], ['instances', (r) => r.instances], ['n', (r) => r.n],
    ['peak req/s', (r) => fmt(r.peak_rps)], ['peak req/s at 1', (r) => fmt(r.peak_rps_1)],
    ['efficiency [95 % CI]', (r) => ci(r.efficiency, r.ci_low, r.ci_high, 3)]], efficiencyRows(a))}
<h2>CPU utilisation (study Table 7.1)</h2>${table([
    ['experiment', (r) => esc(r.experiment ?? '–')], ['app / variant', series], ['instances', (r) => r.instances], ['n', (r) => r.n],
    ['max CPU used % [95 % CI]', (r) => ci(r.max_cpu_used_pct, r.ci_low, r.ci_high)], ['CPU available %', (r) => fmt(r.cpu_available_pct)],
    ['utilisation %', (r) => fmt(r.utilisation_pct)]], cpuRows(a))}
<h2>Rounds and validity</h2>${roundsTable(a)}
<h2>Environment</h2>${table([
    ['platform', (r) => esc(r.platform)], ['git revision', (r) => `<code>${esc(r.git_rev ?? '–')}</code>`],
    ['versions', (r) => `<code>${esc(r.versions)}</code>`], ['environment', (r) => `<code>${esc(r.environment)}</code>`],
    ['rounds', (r) => esc(r.rounds)]], environmentRows(a))}
<p>CSV: ${['rounds', 'groups', 'comparisons', 'scaling-efficiency', 'cpu-utilisation', 'latency-split', 'latency-split-rounds', 'environment',
    'round-seconds', 'round-instances']
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
