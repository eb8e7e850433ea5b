'use strict';
// arg-table.js — a command's flags as one table that is the parser, the validation, the
// defaults and the --help text at once. Every Node command of cfscale uses it: the one file
// lib/arg-table.js, and in the loadgen, which CF pushes alone, a stamped copy written by
// `node contract/readme-tables.js --write`.
//
// A row: [flag, key, type, default, help, range]
//   flag     '--name', optionally with the value's name: '--app APP' (else one from the type);
//            or an environment variable, 'NAME VALUE' in capitals ('RESULTS_DATABASE_URL URL'):
//            read from the environment, never from argv, for values a command line must not
//            carry (`ps` shows every process's arguments: a password, a token)
//   key      the property of the result
//   type     str | int | count (100, 10k) | num | dur (500ms, 10s, 2m, 1h; bare = seconds,
//            the value in ms) | bool (a switch) | list (repeatable, collects strings)
//   default  the value when the flag is absent, written as on the command line ('10s', 20);
//            undefined: no value ([default: -]); '': nothing shown; REQUIRED: must be given;
//            note('text'): shown, no value (the command decides, e.g. a default that depends)
//   range    int/count/num: [min, max] (either may be undefined); str: the allowed values
// parse(argv, rows, { aliases, positionals, rest, env }) → the values by key, positional
// arguments in `_`; a bad command line throws UsageError with one line naming the flag (or
// the variable). env: where the variable rows are read (default process.env).
// help(usageLine, about, rows, { aliases, notes, width }) → the --help text, the variable
// rows under "Environment:".
// parseValues(values, rows) → the same from values by key that a program already holds typed
// (numbers, durations in ms, booleans, arrays for lists): each checked as its flag would be,
// the defaults filled; an unknown key is a UsageError. No text in between.
// parseCommand(name, argv, command) → the values; --help throws CliError with the help for stdout
// (exit 0), a bad command line CliError `NAME: message (see --help)` (exit 1). command: { usage,
// about, rows, aliases, positionals, rest, notes, width }; -h/--help are added when the rows lack them.
// CliError(message, exitCode, { stdout }): how a command ends, thrown by the layers below it;
// cliExitCode(err) at the command's entry point writes it out and gives the code to exit with.

class UsageError extends Error {}

/**
 * A command ends here: `message` is its whole line for stderr ('' for none), `exitCode` the
 * code it exits with, `stdout` what goes to stdout first (the --help text).
 */
class CliError extends Error {
  constructor(message, exitCode = 1, { stdout = '' } = {}) {
    super(message);
    this.exitCode = exitCode;
    this.stdout = stdout;
  }
}

/** For a command's entry point: a CliError's output written, its exit code returned; any other error thrown again. */
function cliExitCode(err) {
  if (!(err instanceof CliError)) throw err;
  if (err.stdout) process.stdout.write(err.stdout);
  if (err.message) process.stderr.write(`${err.message}\n`);
  return err.exitCode;
}

const NOTE = Symbol('note');
const note = (text) => ({ [NOTE]: text });
const REQUIRED = note('(required)');
const DURATION_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };
const COUNT = { '': 1, k: 1e3, m: 1e6, g: 1e9 };
const METAVAR = { dur: 'DURATION', count: 'N', int: 'N', num: 'X', list: 'TEXT', str: 'VALUE' };

/** Milliseconds, or NaN when `text` is not a duration (500ms, 10s, 2m, 1h; bare = seconds). */
function parseDuration(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(text).trim());
  if (m === null) return NaN;
  return Math.round(Number(m[1]) * DURATION_MS[m[2] || 's']);
}

/** A number with an optional k/m/g multiplier, or NaN. */
function parseCount(text) {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(String(text).trim());
  if (m === null) return NaN;
  return Number(m[1]) * COUNT[m[2].toLowerCase()];
}

const flagName = (row) => row[0].split(' ')[0];
/** Whether a row is an environment variable (NAME in capitals) rather than a flag. */
const isEnvRow = (row) => /^[A-Z][A-Z0-9_]*$/.test(flagName(row));

/** What a value of this row must be, for the message that rejects one. */
function describe(type, range) {
  if (type === 'str') return range.length === 1 ? range[0] : `${range.slice(0, -1).join(', ')} or ${range[range.length - 1]}`;
  const [min, max] = range || [];
  if (type === 'int' && max === undefined && (min === 0 || min === 1)) return min ? 'a positive integer' : 'a non-negative integer';
  if (min === undefined && max === undefined) {
    return { dur: 'a duration like 500ms, 10s, 2m or 1h', count: 'a count like 100 or 10k', int: 'an integer', num: 'a number' }[type];
  }
  const what = { dur: 'a duration (ms)', count: 'a count', int: 'an integer', num: 'a number' }[type];
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  return `${what} of at most ${max}`;
}

/** The value of `text` for a row, or a UsageError naming the flag as typed. */
function convert(row, text, typed = flagName(row)) {
  const [, , type, , , range] = row;
  const bad = () => new UsageError(`${typed} must be ${describe(type, range)}, got "${text}"`);
  if (type === 'str' || type === 'list') {
    if (range && !range.includes(text)) throw bad();
    return text;
  }
  let n;
  if (typeof text === 'number') n = text;
  else if (typeof text !== 'string') throw bad();
  else if (type === 'dur') n = parseDuration(text);
  else if (type === 'count') n = parseCount(text);
  else if (type === 'int') n = /^-?\d+$/.test(text) ? Number(text) : NaN;
  else n = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(n) || ((type === 'int' || type === 'count') && !Number.isSafeInteger(n))) throw bad();
  if (range && ((range[0] !== undefined && n < range[0]) || (range[1] !== undefined && n > range[1]))) throw bad();
  return n;
}

/**
 * argv → { key: value, _: [positional…] }. aliases: { '-c': '--parallel' }; positionals: how
 * many arguments without a leading "-" are allowed (default 0); rest: the key that takes
 * everything after "--" (without it "--" is an unknown option). A row whose key is `help`
 * short-cuts the checks: { help: true }.
 */
function parse(argv, rows, { aliases = {}, positionals = 0, rest = null, env = process.env } = {}) {
  const out = { _: [] };
  for (const row of rows) if (row[2] === 'list') out[row[1]] = [];
  const given = new Set();
  const flags = rows.filter((r) => !isEnvRow(r));
  for (let i = 0; i < argv.length; i++) {
    let typed = argv[i];
    let inline;
    if (typed === '--' && rest) { out[rest] = argv.slice(i + 1); break; }
    const eq = typed.indexOf('=');
    if (typed.startsWith('--') && eq > 0) { inline = typed.slice(eq + 1); typed = typed.slice(0, eq); }
    const name = aliases[typed] || typed;
    const row = flags.find((r) => flagName(r) === name);
    if (!row) {
      if (typed.startsWith('-') || out._.length >= positionals) {
        throw new UsageError(typed.startsWith('-') ? `unknown option: ${typed}` : `unexpected argument: ${typed}`);
      }
      out._.push(typed);
      continue;
    }
    const [, key, type] = row;
    given.add(key);
    if (type === 'bool') { out[key] = true; continue; }
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined) throw new UsageError(`${typed} needs a value`);
    if (type === 'list') out[key].push(convert(row, value, typed));
    else out[key] = convert(row, value, typed);
  }
  if (out.help) return { help: true, _: out._ };
  for (const row of rows.filter(isEnvRow)) {
    const text = env[flagName(row)];
    if (text === undefined || text === '') continue;
    given.add(row[1]);
    out[row[1]] = convert(row, text);
  }
  return withDefaults(out, rows, given);
}

/** out with the default of every row not given (a REQUIRED one missing: UsageError). */
function withDefaults(out, rows, given) {
  for (const row of rows) {
    const [, key, type, def] = row;
    if (given.has(key) || type === 'list') continue;
    if (def === REQUIRED) throw new UsageError(`${flagName(row)} is ${isEnvRow(row) ? 'not set' : 'required'}`);
    if (def !== undefined && def !== '' && !(def && def[NOTE])) out[key] = type === 'bool' || typeof def === 'number' ? def : convert(row, def);
  }
  return out;
}

function parseValues(values, rows) {
  const out = { _: [] };
  for (const row of rows) if (row[2] === 'list') out[row[1]] = [];
  const given = new Set();
  for (const [key, v] of Object.entries(values)) {
    if (v === undefined) continue;
    const row = rows.find((r) => r[1] === key && !isEnvRow(r));
    if (!row) throw new UsageError(`unknown option: ${key}`);
    given.add(key);
    if (row[2] === 'bool') {
      if (typeof v !== 'boolean') throw new UsageError(`${flagName(row)} is a switch: true or false, got "${v}"`);
      out[key] = v;
    } else if (row[2] === 'list') {
      if (!Array.isArray(v)) throw new UsageError(`${flagName(row)} takes a list, got "${v}"`);
      out[key] = v.map((x) => convert(row, x));
    } else {
      out[key] = convert(row, v);
    }
  }
  return withDefaults(out, rows, given);
}

/** The default as --help shows it, or '' for none. */
function defaultText(def) {
  if (def === '') return '';
  if (def === undefined) return '-';
  if (def[NOTE]) return def[NOTE];
  if (def === false) return 'off';
  if (def === true) return 'on';
  return String(def);
}

/** Words of `text` in lines of at most `width` characters (one line when it fits). */
function wrap(text, width) {
  if (text.length <= width) return [text];
  const lines = [''];
  for (const word of text.split(' ')) {
    const line = lines[lines.length - 1];
    if (line && line.length + 1 + word.length > width) lines.push(word);
    else lines[lines.length - 1] = line ? `${line} ${word}` : word;
  }
  return lines;
}

/**
 * The --help text: the usage line, `about`, one aligned line per row (alias, flag, value
 * name, help, [default: …]), then `notes`. width: wrap `about` and the help column to this
 * many characters (default: no wrapping).
 */
function help(usageLine, about, rows, { aliases = {}, notes = '', width = Infinity } = {}) {
  const hasAlias = Object.keys(aliases).length > 0;
  const cols = rows.map((row) => {
    const [flag, , type, def, text, range] = row;
    const name = flagName(row);
    const metavar = flag.slice(name.length + 1) || (type === 'str' && range ? range.join('|') : METAVAR[type]);
    const alias = Object.keys(aliases).find((a) => aliases[a] === name);
    const shown = defaultText(def);
    const left = isEnvRow(row) ? `  ${name}=${metavar}`
      : `  ${alias ? `${alias}, ` : hasAlias ? '    ' : ''}${name}${type === 'bool' ? '' : ` ${metavar}`}`;
    return [left, `${text}${shown !== '' ? ` [default: ${shown}]` : ''}`];
  });
  const indent = Math.max(...cols.map((c) => c[0].length)) + 2;
  const lines = cols.map(([left, right]) => {
    const [first, ...more] = wrap(right, Math.max(20, width - indent));
    return [left.padEnd(indent) + first, ...more.map((l) => ' '.repeat(indent) + l)].join('\n');
  });
  const flagLines = lines.filter((_, i) => !isEnvRow(rows[i]));
  const envLines = lines.filter((_, i) => isEnvRow(rows[i]));
  const intro = about.split('\n').map((line) => wrap(line, width).join('\n')).join('\n');
  return `${usageLine}\n\n${intro ? `${intro}\n\n` : ''}${flagLines.join('\n')}\n`
    + `${envLines.length ? `\nEnvironment:\n${envLines.join('\n')}\n` : ''}${notes ? `\n${notes}\n` : ''}`;
}

const HELP_ROW = ['--help', 'help', 'bool', '', 'this help'];

function parseCommand(name, argv, command) {
  const aliases = { '-h': '--help', ...command.aliases };
  const rows = command.rows.some((r) => r[1] === 'help') ? command.rows : [...command.rows, HELP_ROW];
  let o;
  try {
    o = parse(argv, rows, { ...command, aliases });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new CliError(`${name}: ${err.message} (see --help)`, 1);
  }
  if (!o.help) return o;
  throw new CliError('', 0, { stdout: help(command.usage, command.about || '', rows, { ...command, aliases }) });
}

module.exports = {
  parse, parseValues, parseCommand, help, convert, describe, defaultText, note, REQUIRED, UsageError, CliError, cliExitCode, parseDuration, parseCount,
  isEnvRow,
};
