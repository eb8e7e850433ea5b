'use strict';
// first-failure.js — the first failing test of a spec-reporter log, in one line: the line that
// says a suite failed then names what broke, even where only that line is kept (a CI summary).

const MAX = 120;

/** `name: message` of the first failure under "failing tests:", or null when there is none. */
function firstFailure(text) {
  const at = text.indexOf('failing tests:');
  if (at < 0) return null;
  const lines = text.slice(at).split('\n').slice(1);
  const i = lines.findIndex((l) => /^\s*✖ /.test(l));
  if (i < 0) return null;
  const name = lines[i].replace(/^\s*✖ /, '').replace(/ \([\d.]+m?s\)\s*$/, '');
  const message = (lines[i + 1] || '').trim();
  const one = message ? `${name}: ${message}` : name;
  return one.length > MAX ? `${one.slice(0, MAX - 1)}…` : one;
}

module.exports = { firstFailure };
