// state.js — what the platform knows (apps, services, bindings, routes no app is mapped
// to: url → {options, createdAt}, deployments: guid → record, spaces besides `local`: guid →
// {guid, name, createdAt, roles}, tasks: guid → record), persisted as JSON under
// CFSCALE_HOME so `cfl` commands and daemon restarts agree. Only the daemon writes it.
'use strict';

const fs = require('node:fs');

function emptyState() {
  return { apps: {}, services: {}, routes: {}, deployments: {}, spaces: {}, tasks: {} };
}

function loadState(file) {
  try {
    const s = { ...emptyState(), ...JSON.parse(fs.readFileSync(file, 'utf8')) };
    for (const k of Object.keys(emptyState())) {
      if (!s[k] || typeof s[k] !== 'object' || Array.isArray(s[k])) throw new Error(`"${k}" is not an object`);
    }
    return s;
  } catch (e) {
    if (e.code === 'ENOENT') return emptyState();
    throw new Error(`state file ${file} is unreadable: ${e.message}`);
  }
}

function saveState(file, state) {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

module.exports = { loadState, saveState, emptyState };
