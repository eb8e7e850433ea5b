'use strict';
// cpu-quota.js — a local app instance's CPU quota as one typed value, from the flag (run-round.sh
// and scale.sh --cpu) or a plan's cpu to the platform's annotation and the round's record.
//   a number      cores per instance (0.5, 2)
//   CPU_NONE      no quota at all
//   CPU_DEFAULT   nothing asked: the platform's own quota (locally manifest memory in GB x
//                 CFSCALE_CPU_PER_GB cores, local-platform/README.md), as on CF, where CPU
//                 follows memory (docs/cf-platform.md §7)
// parseCpuQuota(value) → a number of cores or CPU_NONE (value: the flag's text or a number);
// throws CpuQuotaError with the reason when it is neither.
// CPU_ANNOTATION, annotationOf(cpu): the process annotation the local Cloud Controller reads
// as the quota (local-platform/lib/cc-api/presenters.js), and its value (null removes it).

const CPU_NONE = 'none';
// Rounds record this text without a quota asked for (rounds.environment.app_cpu_quota_default,
// and app_cpu_quota_cores itself in rounds recorded before the applied quota was).
const CPU_DEFAULT = 'default';
const CPU_ANNOTATION = 'cfscale.local/cpu-quota';

class CpuQuotaError extends Error {}

// A positive decimal (10, 0.5; not 0, not 1e3): what the flag and a plan take.
const POSITIVE_DECIMAL = /^(?!0+(\.0+)?$)[0-9]+(\.[0-9]+)?$/;

function parseCpuQuota(value) {
  if (value === CPU_NONE) return CPU_NONE;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string' && POSITIVE_DECIMAL.test(value)) return Number(value);
  throw new CpuQuotaError(`must be a positive number of cores or ${CPU_NONE}, got "${value}"`);
}

/** The annotation's value for a quota: null (removed) for CPU_DEFAULT. */
const annotationOf = (cpu) => (cpu === CPU_DEFAULT ? null : String(cpu));

module.exports = { parseCpuQuota, annotationOf, CpuQuotaError, CPU_NONE, CPU_DEFAULT, CPU_ANNOTATION };
