'use strict';
// collect.js — what the two collectors share: the checks of their common flags, and running
// a producer (a long-running cf / cfl command, or one polled every few seconds) into an
// ingest CLI until SIGTERM or SIGINT. Then the producer's whole process group is stopped (a
// cf plugin spawns children), the ingest CLI reads to end of input, flushes its rows, and
// its status is the result.
//
// The bytes never pass through this process: the producer writes straight into the ingest
// CLI's stdin pipe (this process holds its copy of the write end while a producer may still
// follow, and drops it for the last one). The ingest CLI runs in a process group of its
// own, so a terminal's Ctrl-C reaches only this process: the ingest CLI, signalled itself,
// would stop reading at once and leave lines in the pipe; ended by end of input instead,
// it reads every line it was given.
//
// API:
//   requireCollectorArgs(cli, { app, round, dryRun }) — --app is a known app; --round is a
//     positive integer unless this is a dry run.
//   DRY_RUN — the placeholders run-round passes for --round (round) and --since (createdAt)
//     under --dry-run, where no round is inserted.
//   pipeUntilTerm(producer, consumerArgv, { env }) → Promise<exit code of the consumer (128+N
//     on signal N)>; env: the consumer's environment (where a credential goes); producer is
//       { argv, intervalMs }  run every intervalMs (from the start of one run to the next;
//                             a run longer than that is followed at once), until stopped
//                             (a failed run is skipped);
//       { argv, next }        runs until stopped; when it ends by itself first, next(code)
//                             gives the producer that takes over (run after its own
//                             delayMs, if any), or null: then the input ends;
//       { argv }              runs until it exits or is stopped.
//     The consumer ending first (a usage or database error) stops the producer.
//   ingestFrom(p, o, producer, parser) → Promise<exit code, or undefined under --dry-run (the
//     producer's command printed)>: producer piped into scripts/parsers/PARSER for o's round
//     and app on platform p, the results database's URL in its environment.
const { spawn } = require('node:child_process');
const { trace, exitCode, spawnError } = require('./exec');

// A producer that ignores SIGTERM gets SIGKILL after this long (cf logs and the statistics
// plugin stop at once on SIGTERM; this only bounds a stuck one).
const KILL_AFTER_MS = 10000;

const DRY_RUN = Object.freeze({ round: '<round>', createdAt: '<created-at>' });

function requireCollectorArgs(cli, { app, round, dryRun }) {
  if (!app) cli.usageError('--app is required');
  cli.requireKnownApp(app);
  if (!round) cli.usageError('--round is required');
  // Under --dry-run run-round.sh passes DRY_RUN.round.
  if (!dryRun && !/^[1-9][0-9]*$/.test(round)) cli.usageError(`--round must be a positive integer, got "${round}"`);
}

/** SIGNAL to a whole process group; a group that is gone already is no error. */
function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The exit code of a child once it has ended ('exit' or 'close'), also when it could not be spawned. */
function ended(child, argv, event) {
  return new Promise((resolve) => {
    child.on('error', (err) => resolve(spawnError(argv, err)));
    child.on(event, (status, signal) => resolve(exitCode(status, signal)));
  });
}

async function pipeUntilTerm(producer, consumerArgv, { env = process.env } = {}) {
  trace(consumerArgv);
  const consumer = spawn(consumerArgv[0], consumerArgv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'], detached: true, env });
  const pipe = consumer.stdin;
  pipe.on('error', () => {}); // never written here; a consumer gone early is reported by its code
  const consumerDone = ended(consumer, consumerArgv, 'close');

  let stopping = false;
  let current = null; // the producer process running now (the leader of its group)
  let wake = null; // ends the sleep between polls
  let killTimer = null;
  let lastPgid = 0;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (current) {
      const pgid = current.pid;
      killGroup(pgid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), KILL_AFTER_MS);
    }
    if (wake) wake();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  consumerDone.then(stop);

  let step = producer;
  let dueAt = Date.now(); // when the next run of a poll is due
  while (!stopping) {
    trace(step.argv);
    // Its own process group: stopped as a whole, and out of reach of a terminal's Ctrl-C.
    const child = spawn(step.argv[0], step.argv.slice(1), { stdio: ['ignore', pipe, 'inherit'], detached: true });
    current = child.pid ? child : null;
    if (child.pid) lastPgid = child.pid;
    const last = step.intervalMs === undefined && !step.next;
    if (last) pipe.destroy(); // the producer holds the only write end
    const code = await ended(child, step.argv, 'exit'); // a failed poll is skipped
    // Children it left behind in its group would hold the pipe open: they go with it.
    if (child.pid && killGroup(child.pid, 'SIGTERM') && !killTimer) {
      const pgid = child.pid;
      killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), KILL_AFTER_MS);
    }
    current = null;
    if (last || stopping) break;
    // At a fixed rate: neither a poll's own time (`cf curl` takes 40-70 ms locally) nor a late
    // timer stretches the interval, which the report's expected stats samples count on.
    let delayMs;
    if (step.intervalMs !== undefined) {
      dueAt = nextDueAt(dueAt, step.intervalMs, Date.now());
      delayMs = Math.max(0, dueAt - Date.now());
    } else {
      step = step.next(code);
      if (!step) break;
      delayMs = step.delayMs ?? 0;
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      wake = () => { clearTimeout(timer); resolve(); };
    });
    wake = null;
  }
  pipe.destroy(); // end of input for the consumer
  const code = await consumerDone;
  if (killTimer) {
    // What ignored SIGTERM and still lives goes now: the input has ended.
    clearTimeout(killTimer);
    killGroup(lastPgid, 'SIGKILL');
  }
  process.removeListener('SIGTERM', stop);
  process.removeListener('SIGINT', stop);
  return code;
}

/** When a poll's next run is due, its last due at PREVDUEAT: one interval on, or now when that has passed (no burst to catch up). */
function nextDueAt(prevDueAt, intervalMs, now) {
  return Math.max(prevDueAt + intervalMs, now);
}

/** A collector's end: the producer into its ingest CLI (see the header), or printed under --dry-run. */
async function ingestFrom(p, o, producer, parser) {
  if (p.dryRun) {
    p.printCmd(producer.argv);
    return undefined;
  }
  // The URL holds a password: the ingest CLI gets it in its environment, never in argv.
  const env = { ...process.env, RESULTS_DATABASE_URL: o.db || await p.resultsDbUrl() };
  return pipeUntilTerm(producer, ['node', `scripts/parsers/${parser}`, '--round', o.round, '--app', o.app, '--platform', p.name], { env });
}

module.exports = { requireCollectorArgs, DRY_RUN, pipeUntilTerm, ingestFrom, nextDueAt, KILL_AFTER_MS };
