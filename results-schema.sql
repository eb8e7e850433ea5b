-- cfscale: the one schema of the project.
--
-- Two kinds of database use it:
--   * the app databases (node-db, java-db) need only the `ads` table; both apps
--     create it themselves with exactly the statement below when it is missing;
--   * the results database (results-db) holds everything else: it is the control
--     plane of a round (rounds + NOTIFY) and where every measurement lands.
--
-- The file is idempotent: applying it twice is harmless, so scripts apply it on
-- every start. Later work extends this file; there is only ever one schema.
-- Units are in column names (_us microseconds, _ms milliseconds, _bytes bytes).

-- ---------------------------------------------------------------- app data
-- The bulletin board of both apps (see contract/README.md for the text format).
CREATE TABLE IF NOT EXISTS ads (
  id         bigserial PRIMARY KEY,
  title      text        NOT NULL,
  body       text        NOT NULL DEFAULT '',
  price      numeric(12,2) NOT NULL DEFAULT 0,
  contact    text        NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------- rounds
-- One row per measured round, inserted by scripts/run-round.sh. Round ids come
-- from this sequence, never typed by hand. Every loadgen instance whose index is
-- below `loadgens` runs the round's plan from `start_at` on.
CREATE TABLE IF NOT EXISTS rounds (
  id            bigserial PRIMARY KEY,
  created_at    timestamptz NOT NULL DEFAULT now(),
  start_at      timestamptz NOT NULL,            -- all loadgens start at this instant
  finished_at   timestamptz,
  status        text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending','running','done','failed','cancelled')),
  platform      text NOT NULL CHECK (platform IN ('local','cf')),
  app           text NOT NULL,                   -- app name as in its manifest
  target_url    text NOT NULL,                   -- base URL the loadgens hit
  host_header   text,                            -- Host to send (local router), or NULL
  app_instances integer NOT NULL CHECK (app_instances >= 1),
  loadgens      integer NOT NULL CHECK (loadgens >= 1),
  model         text NOT NULL CHECK (model IN ('closed','open')),
  parallel      integer CHECK (parallel >= 1),   -- closed model: in flight per loadgen
  rate          double precision CHECK (rate > 0), -- open model: req/s per loadgen
  duration_ms   bigint CHECK (duration_ms > 0),  -- one of duration_ms / requests
  requests      bigint CHECK (requests > 0),     -- per loadgen
  warmup_ms     bigint NOT NULL DEFAULT 0,       -- samples in the first warmup_ms are flagged
  timeout_ms    integer NOT NULL DEFAULT 10000,
  keepalive     boolean NOT NULL DEFAULT true,
  scenario      text NOT NULL DEFAULT 'read',    -- e.g. read | browse | publish | hello | mix
  plan          jsonb NOT NULL DEFAULT '{}',     -- the rest of the loadgen plan (weights, id range, seed)
  label         text,
  experiment    text,                            -- plan file name when run by run-experiment.sh
  git_rev       text,
  versions      jsonb NOT NULL DEFAULT '{}',     -- app/runtime/tool versions
  environment   jsonb NOT NULL DEFAULT '{}',     -- quotas, host CPU model, cf api, ...
  settings      jsonb NOT NULL DEFAULT '{}',     -- app settings (pool size, threads, framework, ...)
  CHECK ((model = 'closed' AND parallel IS NOT NULL) OR (model = 'open' AND rate IS NOT NULL)),
  CHECK (duration_ms IS NOT NULL OR requests IS NOT NULL)
);

-- The measured window (scripts/round/steady-watch.js). Without --warmup, run-round's
-- steady-state gate watches the per-second throughput and, once it is steady (or at the
-- maximum warm-up), sets measure_from and stop_at; the loadgens run until stop_at. With
-- --warmup (or --requests) the gate is off and the window starts at start_at + warmup_ms.
-- ALTER so that results databases created before these columns get them too.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS steady_gate jsonb;          -- gate settings {window_ms, cv_max, trend_max, max_warmup_ms}; NULL = off
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS measure_from timestamptz;   -- start of the measured window (the gate's decision)
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS stop_at timestamptz;        -- the loadgens stop issuing here (measure_from + duration)
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS steady boolean;             -- true: steady; false: not steady at the maximum warm-up

-- The control process (scripts/run-round.sh) and what became of it. run-round writes
-- heartbeat_at every few seconds from the round's insert until it is final
-- (scripts/round/heartbeat.js); a round still pending or running whose heartbeat is older
-- than round_heartbeat_timeout() lost its control process: the next run-round (or
-- `scripts/rounds.sh --reap`) marks it failed with the reason, and no loadgen starts it
-- (loadgen/lib/control-plane.js). db_outage_ms: how long run-round found the results
-- database unreachable while the round was under way (its writes were held and made
-- after); a validity flag in the report.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS heartbeat_at timestamptz;   -- the control process's last sign of life (NULL: created_at)
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS status_reason text;         -- why failed or cancelled (the verdict's reasons, or the reaper's)
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS db_outage_ms bigint;        -- results database unreachable for this long during the round
-- create_token: chosen by create-round before its INSERT (scripts/round/create-round.js). An
-- INSERT retried after its acknowledgement was lost (the connection dropped after the
-- commit) finds the round it made instead of making a second.
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS create_token uuid;
CREATE UNIQUE INDEX IF NOT EXISTS rounds_create_token_key ON rounds (create_token);

-- Longer than the longest results-database outage a round waits out (90 s,
-- scripts/ops/results-db.js OUTAGE_TOLERANCE_MS): the heartbeat cannot be written meanwhile.
CREATE OR REPLACE FUNCTION round_heartbeat_timeout() RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT interval '120 seconds' $$;
-- A round not final whose control process is gone.
CREATE OR REPLACE FUNCTION round_stale(r rounds) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT r.status IN ('pending', 'running')
     AND coalesce(r.heartbeat_at, r.created_at) < now() - round_heartbeat_timeout()
$$;

-- A round the apps file timings under (POST /timings/flush?round=N, for the round's own app):
-- running (pending or running, its control process alive), or finished less than
-- round_timings_grace() ago. run-round flushes before it marks the round final; the grace
-- leaves time to flush by hand after it. The apps refuse any other round with 409 and write
-- nothing, so a caller cannot file rows under a round of its choosing.
CREATE OR REPLACE FUNCTION round_timings_grace() RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT interval '10 minutes' $$;
CREATE OR REPLACE FUNCTION round_takes_timings(r rounds) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT (r.status IN ('pending', 'running') AND NOT round_stale(r))
      OR r.finished_at > now() - round_timings_grace()
$$;

-- Where a round's measured window starts: the gate's measure_from, else start_at + warmup_ms.
-- Every view below cuts the warm-up with it.
CREATE OR REPLACE FUNCTION round_measured_from(r rounds) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT coalesce(r.measure_from, r.start_at + make_interval(secs => r.warmup_ms / 1000.0))
$$;
-- Where it ends: stop_at, else start_at + duration_ms (NULL for a --requests round).
CREATE OR REPLACE FUNCTION round_measured_until(r rounds) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT coalesce(r.stop_at, r.start_at + make_interval(secs => r.duration_ms / 1000.0))
$$;
-- Whether a stats sample lies in the measured window. The seconds after it (loadgens stopped,
-- the instance idling) are not the load's: a 10 s window with its 3 trailing samples read a
-- Node.js instance at its quota as 86 % of it.
CREATE OR REPLACE FUNCTION round_sample_measured(r rounds, sampled_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT sampled_at >= round_measured_from(r)
     AND (round_measured_until(r) IS NULL OR sampled_at <= round_measured_until(r))
$$;

-- A new round wakes every idle loadgen (LISTEN cfscale_rounds); they also poll.
CREATE OR REPLACE FUNCTION cfscale_notify_round() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cfscale_rounds', NEW.id::text);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS rounds_notify ON rounds;
CREATE TRIGGER rounds_notify AFTER INSERT ON rounds
  FOR EACH ROW EXECUTE FUNCTION cfscale_notify_round();

-- ---------------------------------------------------------------- loadgen
-- One row per loadgen instance per round: its own health, so the report can tell
-- when the generator itself was the bottleneck.
CREATE TABLE IF NOT EXISTS loadgen_runs (
  round_id          bigint  NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
  instance_index    integer NOT NULL,
  instance_guid     text,
  status            text NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running','done','failed','stopped','lost')),
  started_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  sent              bigint NOT NULL DEFAULT 0,
  ok                bigint NOT NULL DEFAULT 0,
  errors            bigint NOT NULL DEFAULT 0,
  errors_by_kind    jsonb  NOT NULL DEFAULT '{}',  -- {timeout, connect, reset, status, ...}
  late              bigint NOT NULL DEFAULT 0,     -- open model: could not be sent on time
  cpu_user_ms       bigint,
  cpu_system_ms     bigint,
  eloop_delay_p99_us bigint,
  eloop_delay_max_us bigint,
  rss_max_bytes     bigint,
  -- CPU wanted but not given: the change of its cgroup's cpu.stat over the run (CFS periods,
  -- periods throttled, time throttled); NULL when the loadgen cannot see its cpu.stat.
  cpu_periods           bigint,
  cpu_throttled_periods bigint,
  cpu_throttled_ms      bigint,
  spooled_batches   integer NOT NULL DEFAULT 0,
  detail            text,
  PRIMARY KEY (round_id, instance_index)
);
-- Results databases created before the throttling columns get them here.
ALTER TABLE loadgen_runs ADD COLUMN IF NOT EXISTS cpu_periods bigint,
  ADD COLUMN IF NOT EXISTS cpu_throttled_periods bigint, ADD COLUMN IF NOT EXISTS cpu_throttled_ms bigint;
-- Placement: the loadgen's cell (CF_INSTANCE_IP; locally 127.0.0.1), beside instance_stats.host.
ALTER TABLE loadgen_runs ADD COLUMN IF NOT EXISTS host text;
-- sent, ok and errors grow with every batch loaded, in the batch's own transaction
-- (loadgen/lib/sink.js): the row always tells what reached `requests`, and progress_at when
-- that last grew. An instance that died in the round (killed, or its samples gone with its
-- container at SIGTERM) is marked `lost` when the round finishes, with `lost` = the samples
-- it recorded beyond `sent` (from its cfscale-loadgen-lost log line), else the requests the
-- router or the app saw from it that are not in `requests` (scripts/round/lost-loadgens.js).
ALTER TABLE loadgen_runs ADD COLUMN IF NOT EXISTS progress_at timestamptz,
  ADD COLUMN IF NOT EXISTS lost bigint;
ALTER TABLE loadgen_runs DROP CONSTRAINT IF EXISTS loadgen_runs_status_check;
ALTER TABLE loadgen_runs ADD CONSTRAINT loadgen_runs_status_check
  CHECK (status IN ('running','done','failed','stopped','lost'));

-- One row per request the loadgens sent. Streamed in with COPY while the round
-- runs. correlation_id is a UUIDv7 (time-ordered: the primary key stays compact
-- and a replayed spool batch is recognised as already loaded).
CREATE TABLE IF NOT EXISTS requests (
  correlation_id  uuid    PRIMARY KEY,
  round_id        bigint  NOT NULL,
  loadgen_index   integer NOT NULL,
  op              text    NOT NULL,               -- read | browse | publish | hello | get (CLI)
  intended_at     timestamptz NOT NULL,           -- open model: the scheduled send time
  started_at      timestamptz NOT NULL,           -- when it was actually sent
  latency_us      bigint  NOT NULL,               -- from intended_at (open) / started_at (closed)
  status          smallint NOT NULL DEFAULT 0,    -- HTTP status, 0 when none came back
  error_kind      text,                           -- NULL = ok; timeout|connect|reset|status|...
  bytes           integer NOT NULL DEFAULT 0,     -- response body bytes
  app_instance    integer,                        -- X-Instance-Index of the answer
  vcap_request_id text                            -- X-Vcap-Request-Id of the answer (router key)
);
-- autosummarize: a range is summarized once filled, not at the next VACUUM. Unsummarized ranges
-- match every round_id, so a round's per-second progress and steady-state queries read every row
-- inserted since the last VACUUM (1.8 s a query after 2.4 M rows; 8 ms summarized).
CREATE INDEX IF NOT EXISTS requests_round_brin ON requests USING brin (round_id) WITH (autosummarize = on);
ALTER INDEX requests_round_brin SET (autosummarize = on);
CREATE INDEX IF NOT EXISTS requests_vcap_idx ON requests (vcap_request_id)
  WHERE vcap_request_id IS NOT NULL;

-- ---------------------------------------------------------------- apps
-- What the apps measured inside themselves, flushed at the end of a round.
CREATE TABLE IF NOT EXISTS server_timings (
  round_id       bigint,                          -- as given to POST /timings/flush?round=
  app            text    NOT NULL,
  instance_index integer NOT NULL,
  correlation_id text    NOT NULL,
  route          text    NOT NULL,                -- e.g. 'GET /ads/{id}'
  status         smallint NOT NULL,
  started_at     timestamptz NOT NULL,
  handler_us     bigint  NOT NULL,                -- whole request inside the app
  pool_wait_us   bigint  NOT NULL,                -- waiting for a pooled connection
  db_us          bigint  NOT NULL                 -- executing statements
);
CREATE INDEX IF NOT EXISTS server_timings_corr_idx  ON server_timings (correlation_id);
CREATE INDEX IF NOT EXISTS server_timings_round_idx ON server_timings (round_id);
-- One row per flush batch an app wrote into server_timings, in the same transaction. A
-- batch whose commit was not answered (the connection dropped) is tried again with the same
-- flush_id and the same records: the insert here finds the row (or waits for the first
-- try's transaction to end) and the batch is not written twice. The apps:
-- node-app/timings-flusher.js, java-app TimingsFlusher.java.
CREATE TABLE IF NOT EXISTS server_timings_flushes (
  flush_id       uuid    PRIMARY KEY,             -- chosen by the app, kept until the batch is known written
  round_id       bigint,
  app            text    NOT NULL,
  instance_index integer NOT NULL,
  rows           integer NOT NULL,
  flushed_at     timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------- platform
-- One row per app instance per sample, from the cf statistics plugin, the v3
-- stats endpoint or the local platform (same JSON shape). The platform refreshes
-- about every 15 s (docs/cf-platform.md §1), so repeated
-- samples are dropped by the unique key.
CREATE TABLE IF NOT EXISTS instance_stats (
  round_id         bigint  NOT NULL,
  platform         text    NOT NULL,
  app              text    NOT NULL,
  instance_index   integer NOT NULL,
  sampled_at       timestamptz NOT NULL,          -- usage.time
  state            text,
  cpu              double precision,              -- fraction of one core (1.0 = 100 %)
  cpu_entitlement  double precision,              -- fraction of the entitlement, when known
  mem_bytes        bigint,
  mem_quota_bytes  bigint,
  cpu_quota_cores  double precision,              -- local cgroup quota; NULL on CF
  disk_bytes       bigint,
  disk_quota_bytes bigint,
  uptime_s         bigint,
  source           text NOT NULL CHECK (source IN ('plugin','v3','local')),
  UNIQUE (round_id, app, instance_index, sampled_at)
);
-- Local only: the instance cgroup's cpu.stat counters since it was created (CFS quota
-- throttling), read with each sample; deltas in round_instance_series.
ALTER TABLE instance_stats ADD COLUMN IF NOT EXISTS cpu_periods bigint;           -- nr_periods
ALTER TABLE instance_stats ADD COLUMN IF NOT EXISTS cpu_throttled_periods bigint; -- nr_throttled
ALTER TABLE instance_stats ADD COLUMN IF NOT EXISTS cpu_throttled_us bigint;      -- throttled_time
-- Placement: the cell the instance runs on (v3 stats / plugin `host`; locally 127.0.0.1).
ALTER TABLE instance_stats ADD COLUMN IF NOT EXISTS host text;

-- Router access-log records: Gorouter RTR lines on CF, HAProxy on the local
-- platform (written in the RTR layout, so one parser serves both).
CREATE TABLE IF NOT EXISTS router_timings (
  round_id          bigint,
  platform          text NOT NULL,
  app               text,
  at                timestamptz NOT NULL,
  method            text,
  path              text,
  status            smallint,
  bytes_sent        bigint,
  response_time_us  bigint,                       -- receipt to finish, at the router
  gorouter_time_us  bigint,                       -- router's own share
  app_index         integer,
  vcap_request_id   text,
  correlation_id    text,                         -- when the router logs it (local)
  UNIQUE (vcap_request_id)
);
-- The instance guid the router sent the request to (instance_id of the RTR line): a rolling
-- deployment's new process has the old one's indexes again.
ALTER TABLE router_timings ADD COLUMN IF NOT EXISTS instance_id text;
CREATE INDEX IF NOT EXISTS router_timings_corr_idx ON router_timings (correlation_id);
CREATE INDEX IF NOT EXISTS router_timings_round_idx ON router_timings (round_id);

-- Crashes, OOM kills, restarts, scale events of app instances.
CREATE TABLE IF NOT EXISTS instance_events (
  id             bigserial PRIMARY KEY,
  round_id       bigint,
  platform       text NOT NULL,
  app            text NOT NULL,
  instance_index integer,
  at             timestamptz NOT NULL DEFAULT now(),
  kind           text NOT NULL,                   -- crash | oom | restart | start | stop (detail 'instance GUID': the cell's SIGTERM)
  detail         text
);
CREATE INDEX IF NOT EXISTS instance_events_round_idx ON instance_events (round_id);

-- What an adaptive experiment (scripts/run-experiment.sh, scripts/experiment/README.md) concluded, one
-- row per run of a procedure: scale-until-SLO's stop (instances, loadgens, stop rule,
-- reason) and the capacity search's answer (instances, capacity_rps, soak confirmed). A
-- resumed run replays its decisions and records them again; the report reads the newest.
CREATE TABLE IF NOT EXISTS experiment_outcomes (
  id           bigserial PRIMARY KEY,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  experiment   text NOT NULL,
  platform     text NOT NULL CHECK (platform IN ('local','cf')),
  kind         text NOT NULL CHECK (kind IN ('scale-until-slo','capacity')),
  app          text NOT NULL,
  variant      text NOT NULL,
  instances    integer NOT NULL,
  loadgens     integer,                          -- scale-until-slo: the load it stopped at
  stop         text,                             -- scale-until-slo: router-load | cpu-reference | router-saturation | max-instances | loadgens-max
  capacity_rps double precision,                 -- capacity: total req/s (NULL: no rate passed)
  confirmed    boolean,                          -- capacity: the soak passed the criteria
  reason       text NOT NULL
);
CREATE INDEX IF NOT EXISTS experiment_outcomes_experiment_idx ON experiment_outcomes (experiment);

-- ---------------------------------------------------------------- views
-- Per-round summary over samples after the warm-up.
CREATE OR REPLACE VIEW round_summary AS
SELECT r.id AS round_id, r.app, r.platform, r.app_instances, r.loadgens, r.model,
       r.parallel, r.rate, r.label, r.status,
       count(q.*)                                         AS samples,
       count(q.*) FILTER (WHERE q.error_kind IS NULL)     AS ok,
       count(q.*) FILTER (WHERE q.error_kind IS NOT NULL) AS errors,
       count(q.*) FILTER (WHERE q.error_kind IS NULL)
         / greatest(extract(epoch FROM max(q.started_at) - min(q.started_at)), 0.001)
                                                          AS throughput_rps,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY q.latency_us) AS p50_us,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY q.latency_us) AS p95_us,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY q.latency_us) AS p99_us,
       max(q.latency_us)                                  AS max_us,
       -- open model: the generator's own share of each latency, its send lateness
       -- (started_at - intended_at); NULL for a closed round, which measures from the send
       percentile_cont(0.50) WITHIN GROUP (ORDER BY extract(epoch FROM q.started_at - q.intended_at) * 1e6)
         FILTER (WHERE r.model = 'open')                  AS send_late_p50_us,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM q.started_at - q.intended_at) * 1e6)
         FILTER (WHERE r.model = 'open')                  AS send_late_p99_us
FROM rounds r
LEFT JOIN requests q
  ON q.round_id = r.id
 AND q.intended_at >= round_measured_from(r)
GROUP BY r.id;

-- CPU and memory per app instance per round.
CREATE OR REPLACE VIEW round_instance_usage AS
SELECT round_id, app, instance_index,
       count(*)             AS samples,
       avg(cpu)             AS cpu_avg,
       max(cpu)             AS cpu_max,
       max(cpu_quota_cores) AS cpu_quota_cores,
       avg(mem_bytes)       AS mem_avg_bytes,
       max(mem_bytes)       AS mem_max_bytes,
       max(mem_quota_bytes) AS mem_quota_bytes
FROM instance_stats
GROUP BY round_id, app, instance_index;

-- Where a request's time went: loadgen <-> router <-> app <-> database.
CREATE OR REPLACE VIEW request_latency_split AS
SELECT q.round_id, q.correlation_id, q.op, q.latency_us AS loadgen_us,
       coalesce(rl.response_time_us, rv.response_time_us) AS router_us,
       s.handler_us AS app_us, s.pool_wait_us, s.db_us
FROM requests q
LEFT JOIN server_timings s ON s.round_id = q.round_id AND s.correlation_id = q.correlation_id::text
LEFT JOIN router_timings rl ON rl.round_id = q.round_id AND rl.correlation_id = q.correlation_id::text
LEFT JOIN router_timings rv ON rv.round_id = q.round_id AND rv.vcap_request_id = q.vcap_request_id
                           AND rl.correlation_id IS NULL;

-- ---------------------------------------------------------------- report views
-- Added by report/ (scripts/report.sh, scripts/run-experiment.sh). Read-only views over
-- the tables above; every sample filter excludes the round's warm-up. Experiment rounds
-- carry labels exp:<plan>:<app>:<variant>:i<k>:l<loadgens>:p<parallel>|r<rate>:<kind><n>
-- (plans/order.js), which give the variant and repetition.

-- Mean latency after the warm-up (round_summary has percentiles only).
CREATE OR REPLACE VIEW report_round_latency AS
SELECT r.id AS round_id,
       avg(q.latency_us) FILTER (WHERE q.error_kind IS NULL
                                   AND q.intended_at >= round_measured_from(r))
                                                          AS mean_us,
       count(q.*) FILTER (WHERE q.intended_at < round_measured_from(r))
                                                          AS warmup_samples,
       -- seconds between the first and the last sample after the warm-up: a generator that
       -- joined late or stopped early covers less than duration - warm-up
       extract(epoch FROM
         max(q.started_at) FILTER (WHERE q.intended_at >= round_measured_from(r))
         - min(q.started_at) FILTER (WHERE q.intended_at >= round_measured_from(r)))
                                                          AS measured_s
FROM rounds r
LEFT JOIN requests q ON q.round_id = r.id
GROUP BY r.id;

-- CPU and memory of the round's app, summed over its instances, samples in the measured window.
-- cpu_* are cores (1.0 = one core, CF's `cpu`); available = the sum of the CPU quotas
-- (local cgroups; NULL on CF, where CPU is a share, docs/cf-platform.md §7).
CREATE OR REPLACE VIEW report_round_resources AS
WITH per_instance AS (
  SELECT r.id AS round_id, s.instance_index,
         avg(s.cpu) AS cpu_avg, max(s.cpu) AS cpu_max, max(s.cpu_quota_cores) AS cpu_quota_cores,
         avg(s.mem_bytes) AS mem_avg_bytes, max(s.mem_bytes) AS mem_max_bytes,
         max(s.mem_quota_bytes) AS mem_quota_bytes, count(*) AS samples
  FROM rounds r
  JOIN instance_stats s
    ON s.round_id = r.id AND s.app = r.app
   AND round_sample_measured(r, s.sampled_at)
  GROUP BY r.id, s.instance_index
)
SELECT round_id, count(*) AS instances_sampled, sum(samples) AS samples,
       sum(cpu_avg) AS cpu_used_cores, sum(cpu_max) AS cpu_peak_cores,
       sum(cpu_quota_cores) AS cpu_available_cores,
       sum(cpu_avg) / nullif(sum(cpu_quota_cores), 0) AS cpu_utilisation,
       sum(mem_avg_bytes) AS mem_avg_bytes, sum(mem_max_bytes) AS mem_max_bytes,
       sum(mem_quota_bytes) AS mem_quota_bytes
FROM per_instance
GROUP BY round_id;

-- What may make a round untrustworthy: the generator's own load, late sends (open
-- model), unfinished loadgens, app instances that crashed or restarted in the round, and
-- stats samples lost: stats_samples counts those of the measured window, stats_expected =
-- (its length (by requests: up to the last loadgen's end) ÷ environment.stats_interval_s (the
-- longer of the poll interval and the platform's refresh, recorded by run-round), less the one
-- a sampler's jitter may put just past an edge) × instances; NULL when the round did not
-- record it. The collectors run from the round's creation to past its end, so a working one
-- reaches it. (A 10 s window, 2 instances: 19-20 samples at 1 s, 18 expected.)
-- db_outage_ms: the results database was unreachable during the round (rounds.db_outage_ms).
CREATE OR REPLACE VIEW report_round_validity AS
SELECT r.id AS round_id,
       count(l.*) AS loadgen_runs,
       count(l.*) FILTER (WHERE l.status <> 'done') AS loadgens_not_done,
       max((coalesce(l.cpu_user_ms, 0) + coalesce(l.cpu_system_ms, 0))::double precision
           / nullif(extract(epoch FROM l.finished_at - l.started_at) * 1000, 0)) AS loadgen_cpu_max,
       max(l.eloop_delay_p99_us) AS eloop_p99_max_us,
       coalesce(sum(l.sent), 0) AS sent,
       coalesce(sum(l.late), 0) AS late,
       coalesce(sum(l.late), 0)::double precision / nullif(sum(l.sent), 0) AS late_fraction,
       (SELECT count(*) FROM instance_events e
         WHERE e.app = r.app AND e.kind IN ('crash', 'oom', 'restart')
           AND (e.round_id = r.id
                OR (e.round_id IS NULL AND e.at >= r.start_at AND e.at <= coalesce(r.finished_at, now()))))
                                                          AS instance_restarts,
       (SELECT count(*) FROM instance_stats st
         WHERE st.round_id = r.id AND st.app = r.app AND st.sampled_at >= round_measured_from(r)
           AND st.sampled_at < coalesce(round_measured_until(r), max(l.finished_at))) AS stats_samples,
       greatest(floor(extract(epoch FROM coalesce(round_measured_until(r), max(l.finished_at)) - round_measured_from(r))
             / nullif((r.environment->>'stats_interval_s')::numeric, 0))::bigint - 1, 0) * r.app_instances AS stats_expected,
       max(l.cpu_throttled_periods::double precision / nullif(l.cpu_periods, 0)) AS loadgen_throttled_max,
       max(l.cpu_throttled_ms) AS loadgen_throttled_ms_max,
       r.db_outage_ms
FROM rounds r
LEFT JOIN loadgen_runs l ON l.round_id = r.id
GROUP BY r.id;

-- One row per round with everything the report tables and charts use.
CREATE OR REPLACE VIEW report_round_overview AS
SELECT r.id AS round_id, r.created_at, r.start_at, r.finished_at, r.status, r.platform, r.app,
       coalesce(r.experiment, substring(r.label FROM '^exp:([^:]+):')) AS experiment,
       CASE WHEN r.label LIKE 'exp:%' THEN split_part(r.label, ':', 4) ELSE 'default' END AS variant,
       substring(r.label FROM ':([a-z]+[0-9]*)$') AS rep,
       r.label, r.app_instances, r.loadgens, r.model, r.parallel, r.rate,
       r.duration_ms, r.requests AS requests_per_loadgen, r.warmup_ms, r.scenario,
       r.git_rev, r.versions, r.environment, r.settings,
       s.samples, s.ok, s.errors,
       s.errors::double precision / nullif(s.samples, 0) AS error_rate,
       s.throughput_rps, s.p50_us, s.p95_us, s.p99_us, s.max_us, l.mean_us, l.warmup_samples,
       u.instances_sampled, u.cpu_used_cores, u.cpu_peak_cores, u.cpu_available_cores, u.cpu_utilisation,
       u.mem_avg_bytes, u.mem_max_bytes, u.mem_quota_bytes,
       u.mem_avg_bytes / nullif(s.throughput_rps, 0) AS mem_bytes_per_rps,
       s.throughput_rps / nullif(u.cpu_used_cores, 0) AS rps_per_core,
       v.loadgen_runs, v.loadgens_not_done, v.loadgen_cpu_max, v.eloop_p99_max_us,
       v.sent, v.late, v.late_fraction, v.instance_restarts, l.measured_s, v.stats_samples, v.stats_expected,
       v.loadgen_throttled_max, v.loadgen_throttled_ms_max, v.db_outage_ms,
       s.send_late_p50_us, s.send_late_p99_us
FROM rounds r
JOIN round_summary s ON s.round_id = r.id
JOIN report_round_latency l ON l.round_id = r.id
JOIN report_round_validity v ON v.round_id = r.id
LEFT JOIN report_round_resources u ON u.round_id = r.id;

-- Scaling efficiency X(k) / (k · X(1)) per experiment, app, variant and instance count:
-- X(k) is the best mean throughput over the load steps at k instances (the capacity seen).
CREATE OR REPLACE VIEW report_scaling_efficiency AS
WITH per_step AS (
  SELECT experiment, app, variant, app_instances, loadgens, parallel, rate,
         avg(throughput_rps) AS throughput_rps, count(*) AS n
  FROM report_round_overview
  WHERE status = 'done'
  GROUP BY experiment, app, variant, app_instances, loadgens, parallel, rate
), peak AS (
  SELECT experiment, app, variant, app_instances, max(throughput_rps) AS peak_rps
  FROM per_step
  GROUP BY experiment, app, variant, app_instances
)
SELECT p.experiment, p.app, p.variant, p.app_instances, p.peak_rps, b.peak_rps AS peak_rps_1,
       p.peak_rps / nullif(p.app_instances * b.peak_rps, 0) AS efficiency
FROM peak p
LEFT JOIN peak b
  ON b.experiment IS NOT DISTINCT FROM p.experiment AND b.app = p.app
 AND b.variant = p.variant AND b.app_instances = 1;

-- Where the time went, per round, after the warm-up: loadgen ↔ router ↔ app ↔ database.
-- network_us = loadgen − router (client, network, proxy in front of the router);
-- router_own_us = router − app; app_own_us = app − pool wait − database.
-- The timings are joined within the request's round (a round's timings carry its id: the apps'
-- flush is refused for another round): by correlation id alone every round's rows were hashed
-- for each round, seconds per round once a database holds a few million.
CREATE OR REPLACE VIEW report_round_latency_split AS
WITH j AS (
  SELECT q.round_id, q.latency_us AS loadgen_us,
         coalesce(rl.response_time_us, rv.response_time_us) AS router_us,
         st.handler_us AS app_us, st.pool_wait_us, st.db_us
  FROM rounds r
  JOIN requests q
    ON q.round_id = r.id AND q.error_kind IS NULL
   AND q.intended_at >= round_measured_from(r)
  LEFT JOIN server_timings st ON st.round_id = r.id AND st.correlation_id = q.correlation_id::text
  LEFT JOIN router_timings rl ON rl.round_id = r.id AND rl.correlation_id = q.correlation_id::text
  LEFT JOIN router_timings rv ON rv.round_id = r.id AND rv.vcap_request_id = q.vcap_request_id AND rl.correlation_id IS NULL
)
SELECT round_id, count(*) AS samples, count(router_us) AS with_router, count(app_us) AS with_app,
       avg(loadgen_us) AS loadgen_mean_us, avg(router_us) AS router_mean_us,
       avg(app_us) AS app_mean_us, avg(pool_wait_us) AS pool_wait_mean_us, avg(db_us) AS db_mean_us,
       avg(loadgen_us - router_us) AS network_mean_us,
       avg(router_us - app_us) AS router_own_mean_us,
       avg(app_us - pool_wait_us - db_us) AS app_own_mean_us,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY loadgen_us) AS loadgen_p95_us,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY db_us) AS db_p95_us
FROM j
GROUP BY round_id;

-- ---------------------------------------------------------------- steady state
-- Per-second series, the trend inside the measured window, CPU throttling, and the first
-- round after a change (scripts/round/steady-watch.js, report/lib/report/validity.js).

-- Every second of a round (from start_at, by intended send time): samples, ok, errors,
-- p50/p99 of all samples. measured: the second lies wholly inside the measured window.
CREATE OR REPLACE VIEW round_seconds AS
SELECT r.id AS round_id, s.second,
       r.start_at + make_interval(secs => s.second) AS at,
       count(*) AS samples,
       count(*) FILTER (WHERE q.error_kind IS NULL) AS ok,
       count(*) FILTER (WHERE q.error_kind IS NOT NULL) AS errors,
       (count(*) FILTER (WHERE q.error_kind IS NOT NULL))::double precision / count(*) AS error_rate,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY q.latency_us) AS p50_us,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY q.latency_us) AS p99_us,
       s.second >= ceil(extract(epoch FROM round_measured_from(r) - r.start_at))
         AND (round_measured_until(r) IS NULL
              OR s.second + 1 <= extract(epoch FROM round_measured_until(r) - r.start_at)) AS measured
FROM rounds r
JOIN requests q ON q.round_id = r.id
CROSS JOIN LATERAL (SELECT floor(extract(epoch FROM q.intended_at - r.start_at))::integer AS second) s
GROUP BY r.id, s.second;

-- The per-second throughput inside the measured window: mean, CV and the least-squares
-- trend (fitted change over the window relative to the mean) with its standard error, the
-- same statistics as the gate (scripts/round/steady-state.js windowStats). Seconds without
-- any answer count as 0. A --requests round's last, partial second is left out.
-- Neighbouring seconds are not independent (a CFS-throttled app wanders in stretches of
-- seconds), so the standard error widens by the residuals' lag-1 autocorrelation rho
-- (effective seconds n(1 - rho)/(1 + rho), Santer et al. 2000, J. Geophys. Res. 105:7337),
-- and trend_df is its Student t's degrees of freedom: a wander must not read as a trend.
-- Every CTE is read once, so PostgreSQL inlines each and `WHERE round_id = ...` reaches that
-- round's requests only (the line is fitted by window aggregates over the round's seconds).
CREATE OR REPLACE VIEW round_window_trend AS
WITH w AS (
  SELECT r.id AS round_id,
         ceil(extract(epoch FROM round_measured_from(r) - r.start_at))::integer AS first_s,
         coalesce(floor(extract(epoch FROM round_measured_until(r) - r.start_at))::integer,
                  (SELECT floor(extract(epoch FROM max(q.intended_at) - r.start_at))::integer
                     FROM requests q WHERE q.round_id = r.id)) - 1 AS last_s
  FROM rounds r
), per_second AS (
  SELECT w.round_id, g.second, coalesce(s.ok, 0)::double precision AS ok
  FROM w
  CROSS JOIN LATERAL generate_series(w.first_s, w.last_s) g(second)
  LEFT JOIN round_seconds s ON s.round_id = w.round_id AND s.second = g.second
), residual AS (
  SELECT round_id, second, ok,
         ok - regr_intercept(ok, second) OVER whole - regr_slope(ok, second) OVER whole * second AS e
  FROM per_second
  WINDOW whole AS (PARTITION BY round_id)
), lagged AS (
  SELECT round_id, second, ok, e, lag(e) OVER (PARTITION BY round_id ORDER BY second) AS e_prev
  FROM residual
), fit AS (
  SELECT round_id, count(*) AS seconds, avg(ok) AS ok_per_s, stddev_samp(ok) AS sd,
         regr_slope(ok, second) AS slope,
         sqrt(greatest(regr_syy(ok, second) - regr_slope(ok, second) * regr_sxy(ok, second), 0)
              / nullif(count(*) - 2, 0) / nullif(regr_sxx(ok, second), 0)) AS slope_se,
         greatest(coalesce(sum(e * e_prev) / nullif(sum(e * e), 0), 0), 0) AS rho
  FROM lagged
  GROUP BY round_id
), effective AS (
  SELECT fit.*, greatest(seconds * (1 - rho) / (1 + rho) - 2, 1) AS df
  FROM fit
)
SELECT round_id, seconds, ok_per_s, sd / nullif(ok_per_s, 0) AS cv,
       slope * seconds / nullif(ok_per_s, 0) AS trend,
       slope_se * sqrt(greatest(seconds - 2, 1) / df) * seconds / nullif(ok_per_s, 0) AS trend_se,
       CASE WHEN seconds > 2 THEN df END AS trend_df, rho AS trend_rho
FROM effective;

-- Every stats sample of the round's app: seconds since the start, CPU, memory, and the
-- CFS throttling between this sample and the instance's previous one (local cgroups;
-- a counter that went back, a restarted instance's new cgroup, gives NULL).
CREATE OR REPLACE VIEW round_instance_series AS
SELECT s.round_id, s.instance_index, s.sampled_at,
       extract(epoch FROM s.sampled_at - r.start_at) AS second,
       round_sample_measured(r, s.sampled_at) AS measured,
       s.state, s.cpu, s.cpu_entitlement, s.cpu_quota_cores, s.mem_bytes, s.mem_quota_bytes,
       nullif(greatest(s.cpu_periods - lag(s.cpu_periods) OVER w, -1), -1) AS periods,
       nullif(greatest(s.cpu_throttled_periods - lag(s.cpu_throttled_periods) OVER w, -1), -1) AS throttled_periods,
       nullif(greatest(s.cpu_throttled_us - lag(s.cpu_throttled_us) OVER w, -1), -1) AS throttled_us
FROM instance_stats s
JOIN rounds r ON r.id = s.round_id AND r.app = s.app
WINDOW w AS (PARTITION BY s.round_id, s.instance_index ORDER BY s.sampled_at);

-- Per round, over the measured window: the most throttled instance's share of CFS periods
-- in which it was throttled (local quotas), and the CPU entitlement used (CF v3 stats,
-- docs/cf-platform.md §7: above 1.0 the app runs on spare capacity of its cell).
CREATE OR REPLACE VIEW round_throttling AS
WITH per_instance AS (
  SELECT round_id, instance_index,
         sum(throttled_periods)::double precision / nullif(sum(periods), 0) AS throttled_fraction,
         sum(throttled_us) AS throttled_us,
         avg(cpu_entitlement) AS cpu_entitlement_avg
  FROM round_instance_series
  WHERE measured
  GROUP BY round_id, instance_index
)
SELECT round_id, max(throttled_fraction) AS throttled_fraction_max,
       sum(throttled_us) AS throttled_us, max(cpu_entitlement_avg) AS cpu_entitlement_max
FROM per_instance
GROUP BY round_id;

-- The first round after a change: what differs from the previous round of the same app on
-- the same platform (instances, app settings, the route's load balancing, the CPU quota
-- and its CFS period, the container memory: `cf scale -m` restarts the app). As in the report's stale-round check, only what both rounds
-- recorded is compared (settings {}: not recorded). The first round of an app in a
-- database has nothing to compare with.
CREATE OR REPLACE VIEW round_changes AS
WITH c AS (
  SELECT id AS round_id, app, platform,
         jsonb_strip_nulls(jsonb_build_object(
           'instances', app_instances,
           'settings', nullif(settings, '{}'::jsonb),
           'loadbalancing', coalesce(plan->>'loadbalancing', 'round-robin'),
           'cpu_quota', environment->'app_cpu_quota_cores',
           'cpu_period_us', environment->'app_cpu_period_us',
           'memory_mb', environment->'app_memory_mb')) AS config
  FROM rounds
), l AS (
  SELECT c.*, lag(round_id) OVER w AS prev_round_id, lag(config) OVER w AS prev_config
  FROM c WINDOW w AS (PARTITION BY app, platform ORDER BY round_id)
), d AS (
  SELECT l.round_id, l.prev_round_id,
         ARRAY(SELECT e.key || ': ' || (l.prev_config->>e.key) || ' → ' || (e.value #>> '{}')
                 FROM jsonb_each(l.config) e
                WHERE l.prev_config ? e.key AND e.value <> l.prev_config->e.key
                ORDER BY e.key) AS changes
  FROM l
)
SELECT round_id, prev_round_id, cardinality(changes) > 0 AS first_after_change, changes
FROM d;

-- One row per round: the measured window, the gate's answer, the trend inside the window,
-- throttling and changes — what the round summary and the report's validity flags read.
CREATE OR REPLACE VIEW report_round_steady AS
SELECT r.id AS round_id, r.steady_gate, r.steady,
       extract(epoch FROM round_measured_from(r) - r.start_at) * 1000 AS measure_from_ms,
       extract(epoch FROM round_measured_until(r) - round_measured_from(r)) * 1000 AS window_ms,
       (r.environment->>'app_cpu_period_us')::bigint AS cpu_period_us,
       t.seconds AS window_seconds, t.ok_per_s AS window_ok_per_s, t.cv AS window_cv,
       t.trend AS window_trend, t.trend_se AS window_trend_se,
       h.throttled_fraction_max, h.throttled_us, h.cpu_entitlement_max,
       c.prev_round_id, c.first_after_change, c.changes, t.trend_df AS window_trend_df
FROM rounds r
LEFT JOIN round_window_trend t ON t.round_id = r.id
LEFT JOIN round_throttling h ON h.round_id = r.id
LEFT JOIN round_changes c ON c.round_id = r.id;

-- ---------------------------------------------------------------- events inside a round
-- A cf scale or a rolling deployment at a given time of the measured window (run-round.sh
-- --event, scripts/round/event-runner.js), and what it did to the traffic, stage by stage.

-- One row per event: when the cf command started (t0) and how it went.
CREATE TABLE IF NOT EXISTS round_events (
  round_id           bigint  NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
  seq                integer NOT NULL,                -- 1, 2, … in time order
  kind               text    NOT NULL CHECK (kind IN ('scale', 'deploy', 'restart')),
  at_ms              bigint  NOT NULL,                -- planned: this far into the measured window
  instances_before   integer NOT NULL,
  instances_after    integer NOT NULL,
  t0                 timestamptz NOT NULL,            -- the cf command started (the run-round host's clock)
  command            text    NOT NULL,                -- the cf command line
  exit_code          integer,                         -- NULL: it had not ended when the round's watch did
  command_ms         bigint,
  deployment_guid    text,                            -- deploy, restart: Cloud Controller's deployment
  deployment_seen_at timestamptz,                     -- the first look-up that found it
  settled_at         timestamptz,                     -- every new instance RUNNING (scale), the deployment FINALIZED
  detail             text,                            -- why it did not settle, or how it ended
  PRIMARY KEY (round_id, seq)
);

-- The instances an event started (new) or stopped, as v3 process stats showed them: a new one
-- when a look-up first listed it and first showed it RUNNING (looked up every 250 ms or so).
CREATE TABLE IF NOT EXISTS round_event_instances (
  round_id       bigint  NOT NULL,
  seq            integer NOT NULL,
  role           text    NOT NULL CHECK (role IN ('new', 'stopped')),
  instance_index integer NOT NULL,
  instance_guid  text    NOT NULL,
  seen_at        timestamptz,
  running_at     timestamptz,
  PRIMARY KEY (round_id, seq, instance_guid),
  FOREIGN KEY (round_id, seq) REFERENCES round_events (round_id, seq) ON DELETE CASCADE
);

-- The answers of rounds with events (ok requests): when each came back, the instance that
-- sent it (the app's X-Instance-Index) and its guid (the router's record of it, joined by
-- X-Vcap-Request-Id: a rolling deployment's new process has the old one's indexes again).
CREATE OR REPLACE VIEW round_event_answers AS
SELECT q.round_id, q.started_at,
       CASE WHEN r.model = 'open' THEN q.intended_at ELSE q.started_at END
         + q.latency_us * interval '1 microsecond' AS done_at,
       q.latency_us, q.app_instance AS instance_index, x.instance_id AS instance_guid
FROM requests q
JOIN rounds r ON r.id = q.round_id
LEFT JOIN router_timings x ON x.round_id = q.round_id AND x.vcap_request_id = q.vcap_request_id
WHERE q.error_kind IS NULL AND EXISTS (SELECT 1 FROM round_events e WHERE e.round_id = q.round_id);

-- The failed requests of rounds with events and the instance each had been sent to: the
-- router's record of it (by X-Vcap-Request-Id, or by correlation id when no answer came back),
-- else the app's X-Instance-Index of an error status it answered itself.
CREATE OR REPLACE VIEW round_event_failures AS
SELECT q.round_id, q.started_at, q.error_kind, q.status,
       coalesce(q.app_instance, rt.app_index) AS instance_index, rt.instance_id AS instance_guid
FROM requests q
LEFT JOIN LATERAL (
  SELECT x.app_index, x.instance_id FROM router_timings x
  WHERE (q.vcap_request_id IS NOT NULL AND x.vcap_request_id = q.vcap_request_id)
     OR (q.vcap_request_id IS NULL AND x.round_id = q.round_id AND x.correlation_id = q.correlation_id::text)
  LIMIT 1) rt ON true
WHERE q.error_kind IS NOT NULL AND EXISTS (SELECT 1 FROM round_events e WHERE e.round_id = q.round_id);

-- One row per event: the traffic around it. The steady window before t0 (from the measured
-- window's start, or 60 s after the previous event); the instances that ran before and go on
-- (scale) or the deployment's old ones (deploy, restart) in [t0 − 30 s, t0 + 60 s]; every error
-- in [t0, t0 + 60 s], by kind (and HTTP status) and by the instance it came from ('?': no
-- router record names one).
CREATE OR REPLACE VIEW round_event_traffic AS
SELECT e.round_id, e.seq, e.kind, e.t0, e.instances_before, e.instances_after, bf.from_at AS baseline_from,
       b.samples AS baseline_samples, b.p50_us AS baseline_p50_us, b.p99_us AS baseline_p99_us, b.errors AS baseline_errors,
       o.samples + oe.errors AS old_samples, o.p50_us AS old_p50_us, o.p99_us AS old_p99_us, oe.errors AS old_errors,
       x.errors, x.resets, x.by_kind AS errors_by_kind, y.by_instance AS errors_by_instance
FROM round_events e
JOIN rounds r ON r.id = e.round_id
CROSS JOIN LATERAL (
  SELECT greatest(round_measured_from(r),
                  (SELECT max(p.t0) + interval '60 seconds' FROM round_events p WHERE p.round_id = e.round_id AND p.seq < e.seq)) AS from_at) bf
CROSS JOIN LATERAL (
  SELECT count(*) AS samples, count(*) FILTER (WHERE q.error_kind IS NOT NULL) AS errors,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY q.latency_us) FILTER (WHERE q.error_kind IS NULL) AS p50_us,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY q.latency_us) FILTER (WHERE q.error_kind IS NULL) AS p99_us
  FROM requests q WHERE q.round_id = e.round_id AND q.started_at >= bf.from_at AND q.started_at < e.t0) b
CROSS JOIN LATERAL (
  SELECT count(*) AS samples,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY a.latency_us) AS p50_us,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY a.latency_us) AS p99_us
  FROM round_event_answers a
  WHERE a.round_id = e.round_id AND a.started_at >= e.t0 - interval '30 seconds' AND a.started_at < e.t0 + interval '60 seconds'
    AND CASE WHEN e.kind = 'scale' THEN a.instance_index < least(e.instances_before, e.instances_after)
             ELSE a.instance_guid IN (SELECT s.instance_guid FROM round_event_instances s
                                       WHERE s.round_id = e.round_id AND s.seq = e.seq AND s.role = 'stopped') END) o
CROSS JOIN LATERAL (
  SELECT count(*) AS errors
  FROM round_event_failures f
  WHERE f.round_id = e.round_id AND f.started_at >= e.t0 - interval '30 seconds' AND f.started_at < e.t0 + interval '60 seconds'
    AND CASE WHEN e.kind = 'scale' THEN f.instance_index < least(e.instances_before, e.instances_after)
             ELSE f.instance_guid IN (SELECT s.instance_guid FROM round_event_instances s
                                       WHERE s.round_id = e.round_id AND s.seq = e.seq AND s.role = 'stopped') END) oe
CROSS JOIN LATERAL (
  SELECT coalesce(sum(n), 0) AS errors, coalesce(sum(n) FILTER (WHERE k = 'reset'), 0) AS resets,
         coalesce(jsonb_object_agg(k, n) FILTER (WHERE k IS NOT NULL), '{}'::jsonb) AS by_kind
  FROM (SELECT q.error_kind || CASE WHEN q.status > 0 THEN ' ' || q.status ELSE '' END AS k, count(*) AS n
        FROM requests q
        WHERE q.round_id = e.round_id AND q.error_kind IS NOT NULL
          AND q.started_at >= e.t0 AND q.started_at < e.t0 + interval '60 seconds'
        GROUP BY 1) z) x
CROSS JOIN LATERAL (
  SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) AS by_instance
  FROM (SELECT coalesce(f.instance_index::text, '?') AS k, count(*) AS n
        FROM round_event_failures f
        WHERE f.round_id = e.round_id AND f.started_at >= e.t0 AND f.started_at < e.t0 + interval '60 seconds'
        GROUP BY 1) z) y;

-- One row per instance an event started or stopped, with its stages. New: t0 → listed
-- (queued: the cf call, Cloud Controller, placement; for a deployment also staging and the
-- updater's turns) → RUNNING (starting) → the router's first record of it (routing) → the
-- first answer it served (answering: first_request_ms); each stage from a different clock or
-- look-up, so a stage is at least 0 and the stages add up to end_to_end_ms within the
-- look-up's interval. Its p99 over the first 60 s it served, in % of the steady p99 before t0.
-- Stopped: the cell's SIGTERM (the executor's `stopping instance` log line), the last answer
-- it served, and the errors and resets of requests the router had sent it, from the SIGTERM
-- for the 10 s of the grace period (from t0 when no SIGTERM line came). A scale's instances
-- are told apart by index, a deployment's by guid.
CREATE OR REPLACE VIEW round_event_stages AS
SELECT i.round_id, i.seq, e.kind, i.role, i.instance_index, i.instance_guid, e.t0,
       i.seen_at, i.running_at, ra.routable_at, fs.first_served_at, st.stopping_at, ls.last_served_at,
       greatest(extract(epoch FROM i.seen_at - e.t0), 0) * 1000 AS queued_ms,
       greatest(extract(epoch FROM i.running_at - i.seen_at), 0) * 1000 AS starting_ms,
       greatest(extract(epoch FROM ra.routable_at - i.running_at), 0) * 1000 AS routing_ms,
       greatest(extract(epoch FROM fs.first_served_at - ra.routable_at), 0) * 1000 AS first_request_ms,
       extract(epoch FROM fs.first_served_at - e.t0) * 1000 AS end_to_end_ms,
       p.samples AS first_60s_samples, p.p99_us AS first_60s_p99_us,
       p.p99_us / nullif(t.baseline_p99_us, 0) * 100 AS first_60s_p99_pct,
       se.errors AS stop_errors, se.resets AS stop_resets
FROM round_event_instances i
JOIN round_events e ON e.round_id = i.round_id AND e.seq = i.seq
LEFT JOIN round_event_traffic t ON t.round_id = i.round_id AND t.seq = i.seq
LEFT JOIN LATERAL (
  SELECT min(x.at) AS routable_at FROM router_timings x
  WHERE i.role = 'new' AND x.round_id = i.round_id AND x.at >= e.t0 AND x.app_index = i.instance_index
    AND (e.kind = 'scale' OR x.instance_id = i.instance_guid)) ra ON true
LEFT JOIN LATERAL (
  SELECT min(a.done_at) AS first_served_at FROM round_event_answers a
  WHERE i.role = 'new' AND a.round_id = i.round_id AND a.started_at >= e.t0 AND a.instance_index = i.instance_index
    AND (e.kind = 'scale' OR a.instance_guid = i.instance_guid)) fs ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS samples, percentile_cont(0.99) WITHIN GROUP (ORDER BY a.latency_us) AS p99_us
  FROM round_event_answers a
  WHERE i.role = 'new' AND a.round_id = i.round_id AND a.instance_index = i.instance_index
    AND a.started_at >= e.t0 AND a.done_at >= fs.first_served_at AND a.done_at < fs.first_served_at + interval '60 seconds'
    AND (e.kind = 'scale' OR a.instance_guid = i.instance_guid)) p ON true
LEFT JOIN LATERAL (
  SELECT min(ev.at) AS stopping_at FROM instance_events ev
  WHERE i.role = 'stopped' AND ev.round_id = i.round_id AND ev.kind = 'stop' AND ev.detail = 'instance ' || i.instance_guid) st ON true
LEFT JOIN LATERAL (
  SELECT max(a.done_at) AS last_served_at FROM round_event_answers a
  WHERE i.role = 'stopped' AND a.round_id = i.round_id AND a.instance_index = i.instance_index
    AND a.started_at >= e.t0 - interval '60 seconds'
    AND a.started_at < coalesce(st.stopping_at, e.t0) + interval '10 seconds'
    AND (e.kind = 'scale' OR a.instance_guid = i.instance_guid)) ls ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS errors, count(*) FILTER (WHERE f.error_kind = 'reset') AS resets
  FROM round_event_failures f
  WHERE i.role = 'stopped' AND f.round_id = i.round_id
    AND f.started_at >= coalesce(st.stopping_at, e.t0) AND f.started_at < coalesce(st.stopping_at, e.t0) + interval '10 seconds'
    AND CASE WHEN e.kind = 'scale' THEN f.instance_index = i.instance_index ELSE f.instance_guid = i.instance_guid END) se ON true;
