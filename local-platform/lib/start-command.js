// start-command.js — what an instance runs, as the buildpacks decide
// (docs/cf-platform.md §3, §4): the manifest's `command` under `bash -c`, else
// nodejs → `npm start` in the app dir; java → `java <memory calculator> $JAVA_OPTS -jar JAR`;
// go → the binary `go build` made at push ("staging", into $CFSCALE_HOME/droplets).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { memoryOptions, countJarClasses } = require('./java-memory');
const { appId } = require('./app-id');

function shellQuote(s) { return `'${String(s).replace(/'/g, `'\\''`)}'`; }

function isJava(app) { return /java/.test(app.buildpack); }
function isGo(app) { return /^go/.test(app.buildpack); }

// -trimpath: each push builds in a fresh upload dir; without the dir in the build, Go's
// cache serves every push after the first (about 2 s for chisel instead of 7-40 s).
function goBuild(dir, out) {
  return new Promise((resolve, reject) => {
    execFile('go', ['build', '-trimpath', '-o', out, '.'], { cwd: dir, encoding: 'utf8' }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`go build failed: ${String(stderr || err.message).trim().split('\n').slice(-2).join(' ')}`));
      else resolve();
    });
  });
}

// Work done once per push (CF's staging): class count of a jar, go build (not blocking the
// daemon, which keeps sampling and logging meanwhile).
async function stage(app, dropletDir) {
  const staged = {};
  if (isJava(app)) {
    if (!fs.statSync(app.path).isFile()) throw new Error(`java app path must be a jar, got ${app.path} (build it first: mvn -q package)`);
    staged.classCount = countJarClasses(app.path);
  } else if (isGo(app) && !app.command) {
    fs.mkdirSync(dropletDir, { recursive: true });
    staged.binary = path.join(dropletDir, appId(app.name));
    await goBuild(app.path, staged.binary);
  }
  return staged;
}

// {cwd, command} of an instance.
function startCommand(app, staged = {}) {
  const cwd = fs.statSync(app.path).isFile() ? path.dirname(app.path) : app.path;
  if (app.command) return { cwd, command: app.command };
  if (isJava(app)) {
    const opts = memoryOptions(app.memoryMb, staged.classCount || 0, app.env.JAVA_OPTS || '');
    // JAVA_OPTS from the env comes after the calculated options (§4).
    return { cwd, command: `exec java ${opts.join(' ')} $JAVA_OPTS -jar ${shellQuote(app.path)}` };
  }
  if (isGo(app)) {
    if (!staged.binary) throw new Error(`go app ${app.name} was not built`);
    return { cwd, command: `exec ${shellQuote(staged.binary)}` };
  }
  if (/node/.test(app.buildpack)) return { cwd, command: 'npm start' };
  throw new Error(`buildpack "${app.buildpack}" is not supported locally (nodejs_buildpack, java_buildpack, go_buildpack)`);
}

module.exports = { stage, startCommand };
