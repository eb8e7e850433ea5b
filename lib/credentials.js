// credentials.js — keeping passwords off command lines and out of printed lines. `ps` (and
// /proc/PID/cmdline) shows every process's arguments to every user; a process's environment
// only to its owner and root. So a tool gets a URL without its password in argv and the
// password in its environment, and a line that names a URL masks the password. The scripts
// and the local platform require this one file.
//
// API:
//   pgTool(url) → { conninfo, env }: for psql and the other libpq tools, the URL without its
//     password (argv) and PGPASSWORD (their environment; libpq reads it when the URL has none,
//     PostgreSQL docs "libpq Environment Variables")
//   maskCredentials(text) → text with every `scheme://user:password@` as `scheme://user:***@`
'use strict';

const MASK = '***';
// scheme://user:password@ — the password up to the last @ before the host.
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]*@/gi;

function pgTool(url) {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { conninfo: u.toString(), env: password ? { PGPASSWORD: password } : {} };
}

const maskCredentials = (text) => String(text).replace(URL_PASSWORD, `$1${MASK}@`);

module.exports = { pgTool, maskCredentials };
