// java-memory.js — a simplified Java buildpack memory calculator
// (cloudfoundry/java-buildpack-memory-calculator README; docs/cf-platform.md §4):
//   direct memory 10M, code cache 240M, stack Xss × 250 threads,
//   metaspace = 5800 B × loaded classes + 14,000,000 B, loaded classes = 35 % of the classes
//   in the jar plus the JRE's, heap = total − all of the above (head room 0).
// Xss is 1M (the JVM's default on Linux x86_64 and the buildpack's). Values the user sets
// in JAVA_OPTS are taken as fixed, as the calculator does.
'use strict';

const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

const MB = 1024 * 1024;
const DIRECT_MEMORY = 10 * MB;
const CODE_CACHE = 240 * MB;
const STACK_SIZE = 1 * MB;
const STACK_THREADS = 250;
const CLASS_SIZE = 5800;
const CLASS_OVERHEAD = 14000000;
const LOADED_CLASS_FRACTION = 0.35;
// Classes of the Java runtime: `jimage list lib/modules` counts 26,588 in this machine's
// OpenJDK 17 JDK (a JRE has fewer); counting per start would cost seconds, so a constant.
const JRE_CLASS_COUNT = 25000;

function countJarClasses(jarPath) {
  try {
    const out = execFileSync('unzip', ['-Z1', jarPath], { encoding: 'utf8', maxBuffer: 64 * MB, stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter((l) => l.endsWith('.class')).length;
  } catch {
    // No unzip: estimate from the jar's size (about one class per 2 KiB compressed).
    return Math.round(fs.statSync(jarPath).size / 2048);
  }
}

function optionValue(javaOpts, re) {
  const m = re.exec(javaOpts || '');
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] || '').toUpperCase();
  return n * ({ K: 1024, M: MB, G: 1024 * MB, '': 1 }[unit] ?? 1);
}

// Returns the JVM flags for a container of memoryMb; throws when they cannot fit.
function memoryOptions(memoryMb, appClassCount, javaOpts = '') {
  const total = memoryMb * MB;
  const loaded = Math.ceil(LOADED_CLASS_FRACTION * (appClassCount + JRE_CLASS_COUNT));
  const fixed = {
    direct: optionValue(javaOpts, /-XX:MaxDirectMemorySize=(\d+)([kKmMgG]?)/),
    meta: optionValue(javaOpts, /-XX:MaxMetaspaceSize=(\d+)([kKmMgG]?)/),
    code: optionValue(javaOpts, /-XX:ReservedCodeCacheSize=(\d+)([kKmMgG]?)/),
    xss: optionValue(javaOpts, /-Xss(\d+)([kKmMgG]?)/),
    heap: optionValue(javaOpts, /-Xmx(\d+)([kKmMgG]?)/),
  };
  const direct = fixed.direct ?? DIRECT_MEMORY;
  const meta = fixed.meta ?? CLASS_SIZE * loaded + CLASS_OVERHEAD;
  const code = fixed.code ?? CODE_CACHE;
  const stack = (fixed.xss ?? STACK_SIZE) * STACK_THREADS;
  const heap = fixed.heap ?? total - direct - meta - code - stack;
  if (heap <= 0 || direct + meta + code + stack + heap > total) {
    const need = Math.ceil((direct + meta + code + stack) / MB);
    throw new Error(`java memory calculator: ${memoryMb}M is too small, non-heap alone needs ${need}M`);
  }
  const opts = [];
  if (fixed.direct === null) opts.push(`-XX:MaxDirectMemorySize=${direct / MB}M`);
  if (fixed.heap === null) opts.push(`-Xmx${Math.floor(heap / 1024)}K`);
  if (fixed.meta === null) opts.push(`-XX:MaxMetaspaceSize=${Math.floor(meta / 1024)}K`);
  if (fixed.code === null) opts.push(`-XX:ReservedCodeCacheSize=${code / MB}M`);
  if (fixed.xss === null) opts.push(`-Xss${STACK_SIZE / 1024}K`);
  return opts;
}

module.exports = { memoryOptions, countJarClasses, STACK_THREADS };
