// quota.js — the local org's quota, sized from this machine, and Cloud Controller's check of
// a process against it (docs/cf-platform.md §17). CC validates a started process against its
// org's quota definition on every save (process_model.rb validation_policies): the org's
// total memory (instances × memory of every started process), its instance count, the
// memory of one instance, and (any state) the disk of one instance. A refused save is a 422 whose detail is Sequel's "FIELD ERROR".
'use strict';

const crypto = require('node:crypto');

// CC's integer columns (app/messages/base_message.rb MAX_DB_INT): the largest instances,
// memory_in_mb or disk_in_mb a message accepts.
const MAX_DB_INT = 2 ** 31 - 1;

// CC's largest disk of an instance (config/cloud_controller.yml maximum_app_disk_in_mb),
// checked by MaxDiskQuotaPolicy whatever the state.
const MAX_APP_DISK_MB = 2048;

// The quota's guid is fixed: the org's relationship points at it across restarts.
const { QUOTA_GUID } = require('./cc-api/presenters');
const QUOTA_NAME = 'local';

// {name, guid, memoryMb, instanceMemoryMb, instances} of the org quota in force.
function orgQuota(cfg) {
  return {
    guid: QUOTA_GUID, name: QUOTA_NAME,
    memoryMb: cfg.quotaMemoryMb, instanceMemoryMb: cfg.quotaMemoryMb, instances: cfg.quotaInstances,
  };
}

// The errors CC's policies add for `candidate` (an app record as it would be saved) among
// `apps` (the saved records, the candidate's old one replaced): [] when it fits. Only a
// started process is checked, as AppMaxMemoryPolicy and MaxAppInstancesPolicy do.
function quotaErrors(quota, apps, candidate) {
  const errors = [];
  if (candidate.diskMb > MAX_APP_DISK_MB) {
    errors.push(`disk_quota too much disk requested (requested ${candidate.diskMb} MB - must be less than ${MAX_APP_DISK_MB} MB)`);
  }
  if (candidate.state !== 'STARTED') return errors;
  const others = apps.filter((a) => a.name !== candidate.name && a.state === 'STARTED');
  const memory = others.reduce((s, a) => s + a.instances * a.memoryMb, 0) + candidate.instances * candidate.memoryMb;
  if (memory > quota.memoryMb) errors.push('memory quota_exceeded');
  if (candidate.memoryMb > quota.instanceMemoryMb) errors.push('memory instance_memory_limit_exceeded');
  const instances = others.reduce((s, a) => s + a.instances, 0) + candidate.instances;
  if (instances > quota.instances) errors.push('app_instance_limit app_instance_limit_exceeded');
  return errors;
}

// CC's organization_quota_presenter.rb; -1 (unlimited) is null.
function presentOrgQuota(base, quota, orgGuid, createdAt) {
  return {
    guid: quota.guid, created_at: createdAt, updated_at: createdAt, name: quota.name,
    apps: {
      total_memory_in_mb: quota.memoryMb, per_process_memory_in_mb: quota.instanceMemoryMb,
      total_instances: quota.instances, per_app_tasks: null, log_rate_limit_in_bytes_per_second: null,
    },
    services: { paid_services_allowed: true, total_service_instances: null, total_service_keys: null },
    routes: { total_routes: null, total_reserved_ports: null },
    domains: { total_domains: null },
    relationships: { organizations: { data: [{ guid: orgGuid }] } },
    links: { self: { href: `${base}/v3/organization_quotas/${quota.guid}` } },
  };
}

// A stable guid for a name (events of a process, a buildpack).
function guidOf(text) {
  const h = crypto.createHash('sha1').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

module.exports = { MAX_DB_INT, MAX_APP_DISK_MB, QUOTA_GUID, orgQuota, quotaErrors, presentOrgQuota, guidOf };
