// Code the pages show is code CI compiles: a block marked `<!-- sample: docs/examples/<file> -->` must be lines of that
// file, in order and together (a trailing comment on a line may differ: the pages note output there), and `make docs`
// type-checks the TypeScript samples and compiles the Python ones. A page's TypeScript or Python block without the
// mark fails too, so no sample escapes the check. Exit 1 on any finding.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const sampleLanguages = new Set(['ts', 'typescript', 'python', 'py']);

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : markdownFiles(relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

/** A line as the check compares it: without a trailing `// ...` or `# ...` comment and trailing blanks. */
const comparable = (line: string) => line.replace(/\s+(\/\/|#) .*$/, '').trimEnd();

function isRunOf(block: string[], sample: string[]): boolean {
  return sample.some((_, start) => block.every((line, offset) => sample[start + offset] === line));
}

function findings(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:<!-- sample: (\S+) -->\n+)?```(\w+)\n([\s\S]*?)```/g)) {
    const [, samplePath, language = '', code = ''] = match;
    if (!sampleLanguages.has(language)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    if (!samplePath) {
      found.push(`${file}:${line}: a ${language} block without <!-- sample: docs/examples/... --> before it`);
      continue;
    }
    if (!existsSync(path.join(repoRoot, samplePath))) {
      found.push(`${file}:${line}: ${samplePath} does not exist`);
      continue;
    }
    const block = code.split('\n').map(comparable).filter(Boolean);
    const sample = readFileSync(path.join(repoRoot, samplePath), 'utf8').split('\n').map(comparable);
    if (!isRunOf(block, sample)) found.push(`${file}:${line}: the block is not lines of ${samplePath} as they are now`);
  }
  return found;
}

const all = ['README.md', ...markdownFiles('docs')].flatMap(findings);
for (const finding of all) console.error(finding);
process.exit(all.length > 0 ? 1 : 0);
