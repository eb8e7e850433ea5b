// app-rename.js — `cf rename` (PATCH /v3/apps/:guid {name}) on the local platform: CC only
// changes the app's name (app_update.rb); here everything the daemon keeps by name follows
// it — the app record, its services' bindings, the cell's instances (they keep running),
// what was staged, a rolling deployment's processes — and the router is rebuilt, whose
// backends carry the name. Routes, the guid, the logs (kept by guid for `cf logs`) stay.
'use strict';

function moveKey(map, from, to) {
  if (!map.has(from)) return;
  map.set(to, map.get(from));
  map.delete(from);
}

/** Renames app (a state record) to `name`; the caller checked that the name is free. */
async function renameApp(platform, app, name) {
  const from = app.name;
  delete platform.state.apps[from];
  app.name = name;
  app.updatedAt = new Date().toISOString();
  platform.state.apps[name] = app;
  for (const svc of Object.values(platform.state.services)) {
    if (svc.bindings && svc.bindings[from]) {
      svc.bindings[name] = svc.bindings[from];
      delete svc.bindings[from];
    }
  }
  platform.cell.renameApp(from, name);
  for (const map of [platform.staged, platform.held, platform.deployments.procs, platform.deployments.webDroplet]) moveKey(map, from, name);
  platform.save();
  await platform.routes.sync();
}

module.exports = { renameApp };
