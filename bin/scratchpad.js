#!/usr/bin/env node
'use strict';
const { main } = require('../dist/src/cli/main.js');

main(process.argv).then((code) => {
  process.exitCode = code;
});
