import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Relative links between the repository's Markdown documents, and the anchors they name. Pure
 * functions over text where possible, so the check can be tried on planted inputs.
 */

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens (github-slugger). */
export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors a document's headings produce, outside fenced code; repeats get `-1`, `-2`, … */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links `[text](target)` outside fenced code and inline code spans; external ones left out. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: index + 1 });
    }
  });
  return links;
}

/** README.md and every Markdown file under docs/. */
export function documents(root: string): string[] {
  const found = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk(join(root, 'docs'));
  return found;
}

/** Every relative link of the given documents whose file or anchor does not exist, as `file:line target`. */
export function brokenLinks(root: string, files: string[]): string[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsFor = (path: string) => {
    let known = anchors.get(path);
    if (!known) {
      known = anchorsOf(readFileSync(path, 'utf8'));
      anchors.set(path, known);
    }
    return known;
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      const [path, fragment] = target.split('#', 2);
      const destination = path ? resolve(dirname(file), decodeURI(path)) : file;
      const where = `${relative(root, file)}:${line} ${target}`;
      if (!existsSync(destination)) broken.push(`${where} (no such file)`);
      else if (fragment && destination.endsWith('.md') && !anchorsFor(destination).has(fragment))
        broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}
