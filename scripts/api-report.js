#!/usr/bin/env node
// The public API reports (api/*.api.md), one per entry point, by API Extractor from the declarations that
// tsconfig.api.json emits. `npm run api` rewrites them; `npm run api:check` (part of `npm run lint`) fails when the
// surface differs from the committed reports.
const path = require('node:path');
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

const ENTRIES = ['client', 'worker', 'testing'];
const update = process.argv.includes('--update');
const changed = [];
for (const entry of ENTRIES) {
  const config = ExtractorConfig.loadFileAndPrepare(path.join(__dirname, '..', 'api', `${entry}.json`));
  const result = Extractor.invoke(config, {
    localBuild: update,
    printApiReportDiff: !update,
    messageCallback: (message) => {
      // Problems and the diff are worth lines; whether a report changed, this script says once.
      if (message.logLevel !== 'warning' && message.logLevel !== 'error') message.handled = true;
      const mine = ['console-api-report-copied', 'console-api-report-created', 'console-api-report-not-copied'];
      if (mine.includes(message.messageId)) message.handled = true;
    },
  });
  const report = path.relative(process.cwd(), config.reportFilePath);
  if (result.apiReportChanged) changed.push(report);
  if (!result.succeeded && !result.apiReportChanged) {
    console.error(`api-report: ${entry}: ${result.errorCount} errors, ${result.warningCount} warnings`);
    process.exitCode = 1;
  }
}
if (changed.length > 0 && update) console.log(`api-report: updated ${changed.join(', ')}`);
if (changed.length > 0 && !update) {
  console.error(
    `api-report: the public API differs from ${changed.join(', ')}: run \`npm run api\` and commit the reports ` +
      '(the new ones are in dist/api-reports/)',
  );
  process.exitCode = 1;
}
if (changed.length === 0) console.log(`api-report: ${ENTRIES.length} entry points match their reports`);
