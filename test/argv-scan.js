'use strict';
// argv-scan.js — what processes show in their arguments while a test runs. /proc/PID/cmdline
// (what `ps` prints) is readable by every user, so a password there is a password shown to
// all; the environment (/proc/PID/environ) only to the process's owner and root.
//
// startArgvScan({ homeEnv, everyMs }) samples every process every everyMs; a process is ours
// when this test process is its ancestor, or when its environment holds homeEnv
// (`CFSCALE_HOME=…`: the platform's daemon and what it starts), or an ancestor is ours.
// stop() → { ours: Set of our argument lines, all: Set of every argument line seen }.
// credentialArgs(lines) → the lines that carry a credential by their shape: a URL with a
// password, chisel's --auth user:pass, cf login -p / cf auth USER PASSWORD, PGPASSWORD=.
// secretArgs(lines, secrets) → the lines holding one of the given secret values.
const fs = require('node:fs');

const CREDENTIAL_SHAPES = [
  /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i, // scheme://user:password@
  /--auth[ =]\S+:\S+/, // chisel's client and server
  /(^|\/)cf login .*(^| )-p \S/, // cf login -p PASSWORD
  /(^|\/)cf auth \S+ \S+/, // cf auth USER PASSWORD
  /\bPGPASSWORD=/, // env PGPASSWORD=… psql
];

const read = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch { return null; } };
const ppidOf = (stat) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);

function startArgvScan({ homeEnv, everyMs = 100 }) {
  const known = new Map(); // pid → ours (decided once: a reparented process stays ours)
  known.set(process.pid, true);
  const ours = new Set();
  const all = new Set();
  const tick = () => {
    const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).sort((a, b) => a - b);
    for (const pid of pids) {
      if (!known.has(pid)) {
        const stat = read(`/proc/${pid}/stat`);
        if (stat === null) continue;
        const env = read(`/proc/${pid}/environ`) || '';
        known.set(pid, known.get(ppidOf(stat)) === true || env.split('\0').includes(homeEnv));
      }
      const cmdline = read(`/proc/${pid}/cmdline`);
      if (!cmdline) continue;
      const line = cmdline.replace(/\0+$/, '').split('\0').join(' ');
      all.add(line);
      if (known.get(pid)) ours.add(line);
    }
  };
  const timer = setInterval(tick, everyMs);
  tick();
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { ours, all };
    },
  };
}

const credentialArgs = (lines) => [...lines].filter((l) => CREDENTIAL_SHAPES.some((re) => re.test(l)));
const secretArgs = (lines, secrets) => [...lines].filter((l) => secrets.some((s) => s && l.includes(s)));

module.exports = { startArgvScan, credentialArgs, secretArgs };
