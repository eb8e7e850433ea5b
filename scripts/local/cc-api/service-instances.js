'use strict';
module.exports = { register() {} };
