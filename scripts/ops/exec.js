'use strict';
// exec.js — running commands for the cfscale Node scripts: shell-quoting for the dry-run
// listing (each word quoted so bash reads it back as the word), and spawning with the
// output where the scripts want it. DEBUG=1 prints every command to stderr first (`+ …`).
//
// API:
//   shellQuote(word), formatCmd(argv) → one shell-quoted line
//   trace(argv) → under DEBUG=1, `+ command` on stderr (for commands spawned elsewhere)
//   run(argv, { stdout: 'stderr'|'inherit'|'ignore' }) → Promise<exit code> (128+N on signal N,
//     127 when the command is missing); stdin and stderr inherited
//   capture(argv, { stderr: 'inherit'|'ignore'|'pipe' }) → Promise<{ code, stdout, stderr }>
//   runAsync(argv, { input, stdout: 'pipe'|'inherit'|'stderr'|'ignore', stderr, onLine,
//     detached, env }) → { child, done: Promise<{ code, stdout }> }; onLine(line) gets every line
//     of stdout and stderr (both piped) instead of them being passed on.
//   exitCode(status, signal) → the code a shell reports (128+N on signal N)
//   spawnError(argv, err) → 127 (missing) or 126, after one line on stderr
//   findOnPath(cmd), isExecutable(file), processAlive(pid) (process-checks.js, re-exported); onPath(cmd)
// Everything here is asynchronous: a round runs inside a process that does other work
// meanwhile (its heartbeat, the collectors' pipes, a second round's timers).
const os = require('node:os');
const { spawn } = require('node:child_process');
const { isExecutable, findOnPath, processAlive } = require('../../lib/process-checks');

const SAFE_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** Quote one word for a shell, readably: bare when safe, else in single quotes. */
function shellQuote(w) {
  const s = String(w);
  return s !== '' && SAFE_WORD.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

const formatCmd = (argv) => argv.map(shellQuote).join(' ');

function trace(argv) {
  if (process.env.DEBUG === '1') process.stderr.write(`+ ${formatCmd(argv)}\n`);
}

/** The exit code of a finished child as a shell reports it. */
function exitCode(status, signal) {
  if (status !== null && status !== undefined) return status;
  return 128 + (os.constants.signals[signal] || 0);
}

function spawnError(argv, err) {
  process.stderr.write(`${argv[0]}: ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`);
  return err.code === 'ENOENT' ? 127 : 126;
}

const onPath = (cmd) => findOnPath(cmd) !== null;

const STDOUT = { stderr: 2, inherit: 'inherit', ignore: 'ignore', pipe: 'pipe' };

/** A command run to its end, its stdout where asked; resolves its exit code. */
async function run(argv, { stdout = 'stderr' } = {}) {
  return (await runAsync(argv, { stdout, stderr: 'inherit' }).done).code;
}

/** A command run to its end with its stdout (and stderr when 'pipe') kept; never rejects. */
function capture(argv, { stderr = 'inherit' } = {}) {
  trace(argv);
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', STDOUT[stderr]] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    if (stderr === 'pipe') child.stderr.on('data', (d) => err.push(d));
    child.on('error', (e) => resolve(e.code === 'ENOENT'
      ? { code: 127, stdout: '', stderr: `${argv[0]}: command not found\n` }
      : { code: 126, stdout: '', stderr: `${e.message}\n` }));
    child.on('close', (status, signal) => resolve({
      code: exitCode(status, signal), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
    }));
  });
}

/** Split a stream into lines for onLine (the last, unterminated one at the end). */
function lineSplitter(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop();
    for (const p of parts) onLine(p);
  });
  return () => { if (rest !== '') onLine(rest); rest = ''; };
}

function runAsync(argv, { input, stdout = 'inherit', stderr = 'inherit', onLine, detached = false, env = process.env } = {}) {
  trace(argv);
  const stdio = [input === undefined ? 'inherit' : 'pipe',
    onLine ? 'pipe' : STDOUT[stdout], onLine ? 'pipe' : STDOUT[stderr]];
  const child = spawn(argv[0], argv.slice(1), { stdio, detached, env });
  let out = '';
  const flushes = [];
  if (onLine) {
    flushes.push(lineSplitter(child.stdout, onLine), lineSplitter(child.stderr, onLine));
  } else if (stdout === 'pipe') {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => { out += d; });
  }
  if (input !== undefined) {
    child.stdin.on('error', () => {}); // a consumer that exits early
    child.stdin.end(input);
  }
  const done = new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: spawnError(argv, err), stdout: out }));
    child.on('close', (status, signal) => {
      for (const f of flushes) f();
      resolve({ code: exitCode(status, signal), stdout: out });
    });
  });
  return { child, done };
}

module.exports = {
  shellQuote, formatCmd, trace, run, capture, runAsync, exitCode, spawnError,
  isExecutable, findOnPath, onPath, processAlive,
};
