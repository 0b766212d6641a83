import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');
/** The kernel: the cycle loop and its seam, and the pure rules it runs on. */
const KERNEL = ['workflows/cycle', 'core/cycle'];
/** Feature folders the kernel must not reach, not even for a type. */
const FEATURES = ['agent', 'research', 'staged'];

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The imports of `file` (value and type) that land in a feature folder, as `path: specifier`. */
export function featureImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:from|import|require)\s*\(?\s*'(\.[^']+)'/g)].flatMap((match) => {
    const target = path.relative(SRC, path.resolve(path.dirname(file), match[1] as string));
    const [runtime, feature] = target.split(path.sep);
    const isFeature = (runtime === 'workflows' || runtime === 'core') && FEATURES.includes(feature ?? '');
    return isFeature ? [`${path.relative(SRC, file)}: ${match[1]}`] : [];
  });
}

describe('the cycle kernel', () => {
  it('imports nothing from a feature folder (agent, research, staged)', () => {
    const offending = KERNEL.flatMap((folder) =>
      sourceFiles(path.join(SRC, folder)).flatMap((file) => featureImports(file, fs.readFileSync(file, 'utf8'))),
    );
    expect(offending).toEqual([]);
  });

  it('would see such an import', () => {
    const file = path.join(SRC, 'workflows/cycle/cycle-run.ts');
    const text =
      "import { BOARD_WRITE } from '../research/board-write';\nimport type { X } from '../../core/staged/rules';";
    expect(featureImports(file, text)).toEqual([
      'workflows/cycle/cycle-run.ts: ../research/board-write',
      'workflows/cycle/cycle-run.ts: ../../core/staged/rules',
    ]);
  });
});

describe('the lint rule that keeps features out of the kernel', () => {
  // eslint.config.mjs: no import of a feature folder or message file, no identifier or string naming a feature.
  // The project's own eslint configuration (an ES module, which jest's sandbox cannot import) in a child process, fed
  // the text. Only the restriction rules run, without type information: they read syntax alone, and building the
  // TypeScript program for the typed rules took 14 s of CPU.
  const LINT_STDIN = `
    const { ESLint } = require('eslint');
    (async () => {
      let text = '';
      for await (const chunk of process.stdin) text += chunk;
      const eslint = new ESLint({
        overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
        ruleFilter: ({ ruleId }) => ruleId.startsWith('no-restricted-'),
      });
      process.stdout.write(JSON.stringify(await eslint.lintText(text, { filePath: process.argv[1] })));
    })();`;
  const lint = async (text: string, file = 'src/workflows/cycle/task-loop.ts') => {
    const root = path.resolve(SRC, '..');
    const args = ['-e', LINT_STDIN, path.join(root, file)];
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(process.execPath, args, { cwd: root }, (error, stdout, stderr) =>
        error ? reject(new Error(`eslint failed: ${stderr}`)) : resolve(stdout),
      );
      child.stdin?.end(text);
    });
    const [result] = JSON.parse(output) as { messages: { ruleId: string; line: number }[] }[];
    return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.line}`);
  };

  it('fails on a feature named in a kernel file: an import, an identifier, a string; not on kernel words', async () => {
    const text = [
      "import { replySignal } from '../../common/messages/agent';",
      'export const boardId = 1;',
      "export const prompt = 'staged';",
      'export const kind = `sub-agent ${String(replySignal)} subagent`;',
      "export const system = 'cycle';",
      '',
    ].join('\n');
    expect(await lint(text)).toEqual([
      'no-restricted-imports: 1',
      'no-restricted-syntax: 2',
      'no-restricted-syntax: 3',
      'no-restricted-syntax: 4',
    ]);
  }, 60_000);
});
