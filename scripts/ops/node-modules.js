'use strict';
// node-modules.js — a Node app goes to CF with its installed node_modules. Uploaded
// modules make the Node.js buildpack run `npm rebuild --nodedir=$NODE_HOME`; without them
// it runs `npm install`, and node-gyp downloads the node headers from the internet to
// build pg-native's libpq (docs/cf-platform.md §12), which a foundation without internet
// access fails. So a cf push of a Node app stops first, with one line, when its modules
// are not installed or its .cfignore keeps them back.
//
// API:
//   nodeModulesProblem(manifestFile) → '' when fine (or not a Node app), else the reason
//   requireNodeModules(p, app)         dies with that reason (p: a Platform of target.js)
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { ROOT, MANIFEST_DIR } = require('./cli');

const LOCK_FILE = 'package-lock.json';
// Lines of a .cfignore that keep node_modules from being uploaded (gitignore syntax).
const IGNORES_NODE_MODULES = /^(\*\*\/|\/)?node_modules(\/|\/\*\*?)?$/;

/** The directory a manifest's first application pushes (its path: relative to the manifest). */
function appDirOf(manifestFile) {
  const doc = YAML.parse(fs.readFileSync(manifestFile, 'utf8'));
  const appPath = doc?.applications?.[0]?.path || '.';
  return path.resolve(path.dirname(manifestFile), appPath);
}

/** The .cfignore line that excludes node_modules, or ''. */
function cfignoreLine(dir) {
  let text;
  try {
    text = fs.readFileSync(path.join(dir, '.cfignore'), 'utf8');
  } catch {
    return '';
  }
  return text.split('\n').map((l) => l.trim()).find((l) => IGNORES_NODE_MODULES.test(l)) || '';
}

/** Packages the lock file installs in production (not dev, not optional) that are absent. */
function missingPackages(dir, lock) {
  return Object.entries(lock.packages || {})
    .filter(([key, e]) => key.startsWith('node_modules/') && !e.dev && !e.optional && !e.devOptional && !e.link)
    .map(([key]) => key)
    .filter((key) => !fs.existsSync(path.join(dir, key, 'package.json')));
}

function nodeModulesProblem(manifestFile) {
  const dir = appDirOf(manifestFile);
  if (!fs.existsSync(path.join(dir, 'package.json'))) return '';
  const rel = dir.startsWith(ROOT + path.sep) ? path.relative(ROOT, dir) : dir;
  const why = 'cf push must upload installed node_modules so staging builds pg-native without downloading node headers (docs/cf-platform.md §12)';
  const ignored = cfignoreLine(dir);
  if (ignored) return `${rel}/.cfignore excludes node_modules ("${ignored}"): remove that line; ${why}`;
  let lock;
  try {
    lock = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
  } catch {
    return `${rel}/${LOCK_FILE} missing or unreadable: run npm install in ${rel} and keep the lock file next to node_modules; ${why}`;
  }
  const missing = missingPackages(dir, lock);
  if (missing.length > 0) {
    const name = missing[0].replace(/^.*node_modules\//, '');
    return `${rel}/node_modules lacks ${missing.length} package(s) of ${LOCK_FILE} (first: ${name}): run npm ci in ${rel}; ${why}`;
  }
  return '';
}

function requireNodeModules(p, app) {
  const problem = nodeModulesProblem(path.resolve(ROOT, MANIFEST_DIR, `${app}.yml`));
  if (problem) p.cli.die(problem);
}

module.exports = { nodeModulesProblem, requireNodeModules };
