// app-id.js — an app's name as the platform's files, cgroups and HAProxy backends are named.
// Cloud Controller takes any printable name up to 255 characters (docs/cf-platform.md §23):
// spaces, slashes, dots, any script. Such a name is no file name (`a/b`, `..`, 255
// characters plus `.log`), no cgroup and no HAProxy identifier, so it is used as it is only
// when it is short and plain, else as `_` and a hash of it (a plain name never starts with `_`).
'use strict';

const crypto = require('node:crypto');

// Letters, digits, '.', '_', '-' (what HAProxy allows in a backend name), starting with a
// letter or digit, short enough for `pin_NAME_INDEX` and `NAME.log.1` in a file name.
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const HASH_CHARS = 16;

function appId(name) {
  return PLAIN.test(name) ? name : `_${crypto.createHash('sha256').update(name).digest('hex').slice(0, HASH_CHARS)}`;
}

module.exports = { appId };
