'use strict';
// cf-version.js — which cf CLI is installed, for commands that need a newer one than cf v8
// itself. `cf version` prints `BINARY version SEMVER`, where SEMVER carries the build's
// sha and date as build metadata (`cf version 8.9.1+3fc1a57.2024-12-04`); a cf built
// without version flags says 0.0.0-unknown-version (cli command/common/version_command.go,
// version/version.go).
//
// API:
//   parseCfVersion(text) → [major, minor, patch] of a release, or null (unknown or pre-release)
//   versionAtLeast(have, want) → have >= want, both [major, minor, patch]
//   cfCliShortfall({ code, stdout }, want) → '' when the `cf version` run shows a release
//     >= want ('X.Y.Z'), else what was found instead ("this is 8.9.0", "cf version failed")
//   requireCfCli(p, want, { what, alsoNeeds }) → a promise; dies naming what needs it, the needed and the
//     installed version, and what else it needs (p: a Platform of target.js; want 'X.Y.Z')

const VERSION_LINE = /^\S+ version (\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\s*$/m;

function parseCfVersion(text) {
  const m = VERSION_LINE.exec(text);
  if (!m || m[4] || (m[1] === '0' && m[2] === '0' && m[3] === '0')) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function versionAtLeast(have, want) {
  for (let i = 0; i < 3; i++) {
    if (have[i] !== want[i]) return have[i] > want[i];
  }
  return true;
}

function cfCliShortfall({ code, stdout }, want) {
  const text = stdout.trim();
  const have = code === 0 ? parseCfVersion(text) : null;
  if (have && versionAtLeast(have, want.split('.').map(Number))) return '';
  return code !== 0 ? 'cf version failed' : have ? `this is ${have.join('.')}` : `cannot tell from "${text}"`;
}

async function requireCfCli(p, want, { what, alsoNeeds = '' }) {
  const found = cfCliShortfall(await p.cfQuery('version', { stderr: 'ignore' }), want);
  if (!found) return;
  p.cli.die(`${what} needs cf CLI >= ${want} (${found})${alsoNeeds ? ` and ${alsoNeeds}` : ''}: install a newer cf v8`);
}

module.exports = { parseCfVersion, versionAtLeast, cfCliShortfall, requireCfCli };
