#!/usr/bin/env node
'use strict';
// Before anything else loads: what loads after it is compiled from the code kept by the last command.
require('../dist/src/cli/compile-cache.js').enableCompileCache();
const { main } = require('../dist/src/cli/main.js');

// A reader that stops early (`scratchpad --help | head`) closes the pipe: what is left to print has nowhere to go, and
// the command ends there, as a process that SIGPIPE ends would (Node ignores the signal and reports EPIPE instead).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
