// cfl purge: a platform whose home lies in a directory only root may enter (a clone in
// /root) keeps its PostgreSQL data in /var/lib/cfscale/<hash>; purge lists that, the home
// and the cgroups and removes nothing; purge --yes stops the platform, then removes them all.
// Its own platform (fixtures/cf-cli-world.js); under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');
const { loadConfig, OUTSIDE_PG_ROOT } = require('../lib/config');

const w = cfCliWorld({ rootOnly: true });
const isRoot = process.getuid() === 0;

test('cfl purge lists what the platform keeps and removes nothing; --yes stops it and removes it all', async () => {
  const cfl = (...args) => w.run(path.join(w.repo, 'scripts', 'cfl'), args);
  const cfg = loadConfig(w.env);
  const outside = path.join(OUTSIDE_PG_ROOT, cfg.homeHash);
  const cgroups = ['memory', 'cpu', 'cpuacct'].map((c) => path.join(cfg.cgroupRoot, c, `cfscale-${cfg.homeHash}`)).filter((d) => fs.existsSync(d));
  assert.equal(fs.existsSync(path.join(outside, 'pg', 'data')), isRoot, `as root the data is outside the home: ${outside}`);
  const kept = [cfg.home, ...(isRoot ? [outside] : []), ...cgroups];

  const listed = await cfl('purge');
  assert.equal(listed.code, 1, listed.out);
  assert.match(listed.stdout, /^cfl purge --yes removes \(after stopping the platform\):$/m);
  for (const p of kept) assert.match(listed.stdout, new RegExp(`^  ${p.replace(/[.]/g, '\\.')}  `, 'm'), `${p} listed`);
  assert.match(listed.stderr, /^cfl: nothing removed: cfl purge --yes to remove it$/m);
  for (const p of kept) assert.ok(fs.existsSync(p), `${p} still there`);
  assert.match((await cfl('status')).stdout, /^cfl daemon pid \d+/m, 'still running');

  const purged = await cfl('purge', '--yes');
  assert.equal(purged.code, 0, purged.out);
  assert.match(purged.stdout, /^removing \(after stopping the platform\):$/m);
  assert.match(purged.stdout, /^OK$/m);
  for (const p of kept) assert.ok(!fs.existsSync(p), `${p} removed`);
  assert.match((await cfl('status')).stdout, /the local platform is not running/);
  assert.equal((await cfl('purge')).stdout, `nothing to purge for CFSCALE_HOME=${cfg.home}\n`);
});
