// The Markdown files outside docs/ (README.md, CONTRIBUTING.md, CHANGELOG.md, bench/README.md) link into the
// repository; VitePress checks only the site's own pages, so this checks theirs: every relative link names a file
// that exists, and every #anchor into a Markdown file names one of its headings. Exit 1 on a dead link.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const files = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md'];

/** A heading's anchor as GitHub and VitePress both make it for plain words: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .trim()
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const headings = readFileSync(file, 'utf8').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((heading) => anchorOf(heading.replace(/^#+ /, ''))));
}

function deadLinks(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const dead: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!target || /^[a-z]+:/.test(target)) continue;
    const [linkPath = '', anchor] = target.split('#');
    const resolved = linkPath ? path.resolve(path.dirname(path.join(repoRoot, file)), linkPath) : path.join(repoRoot, file);
    if (!existsSync(resolved)) dead.push(`${file}: ${target} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) dead.push(`${file}: ${target} (no such heading)`);
  }
  return dead;
}

const dead = files.flatMap(deadLinks);
for (const link of dead) console.error(`dead link: ${link}`);
process.exit(dead.length > 0 ? 1 : 0);
