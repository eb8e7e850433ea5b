'use strict';
// config-error.js — the one error type for a bad setting: its message names the variable.

class ConfigError extends Error {}

module.exports = { ConfigError };
