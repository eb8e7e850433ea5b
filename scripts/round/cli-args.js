'use strict';
// cli-args.js — the flags of the round helpers: `--name value` pairs and bare `--switch`es,
// checked against a table; a bad call is one line on stderr and exit 1.

/**
 * Parse argv against spec { name: { required?, type?: 'int'|'number'|'string'|'bool', default? } }.
 * Returns an object keyed by the camelCased names.
 */
function parseArgs(argv, spec, prog) {
  const out = {};
  for (const [name, s] of Object.entries(spec)) {
    if (s.default !== undefined) out[camel(name)] = s.default;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith('--') ? arg.slice(2) : null;
    const s = name && spec[name];
    if (!s) fail(prog, `unknown argument: ${arg}`);
    if (s.type === 'bool') { out[camel(name)] = true; continue; }
    if (i + 1 >= argv.length) fail(prog, `${arg} needs a value`);
    out[camel(name)] = convert(argv[++i], s.type, arg, prog);
  }
  for (const [name, s] of Object.entries(spec)) {
    if (s.required && out[camel(name)] === undefined) fail(prog, `--${name} is required`);
  }
  return out;
}

function convert(value, type, flag, prog) {
  if (type === 'int') {
    if (!/^[0-9]+$/.test(value)) fail(prog, `${flag} must be a non-negative integer, got "${value}"`);
    return Number(value);
  }
  if (type === 'number') {
    const n = Number(value);
    if (value === '' || !Number.isFinite(n)) fail(prog, `${flag} must be a number, got "${value}"`);
    return n;
  }
  return value;
}

function camel(name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}

function fail(prog, message) {
  process.stderr.write(`${prog}: ${message}\n`);
  process.exit(1);
}

module.exports = { parseArgs, fail };
