import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Rule ids of docs/domain.md and the tests that name them (the convention is written at the top of
 * docs/domain.md). Pure functions over text, so the check can be tried on planted inputs.
 */

/** `area.short-name`: lower-case words joined by `.` and `-`, at least one `.`. */
const ID = '[a-z0-9]+(?:-[a-z0-9]+)*(?:\\.[a-z0-9]+(?:-[a-z0-9]+)*)+';
const ID_TOKEN = new RegExp(`\\[(${ID})\\]`, 'g');
const NUMBERED = /^(\d+(?:\.\d+)+)\.\s+(.*)$/;
const RULE_HEAD = new RegExp(`^\\[(${ID})\\](\\s+\\(no database\\))?(?:\\s|$)`);
const SECTION = /^## (\d+)\. /;
/** A section whose first line starts so states no rules: its numbered paragraphs carry no ids. */
const EXEMPT_MARK = /^_Not rules\b/;

export interface Rule {
  id: string;
  number: string;
  line: number;
  touchesDatabase: boolean;
}

export interface DomainDoc {
  rules: Rule[];
  /** Numbered paragraphs of rule sections that carry no id (or a malformed one). */
  unnamed: { number: string; line: number }[];
  /** Ids given to more than one paragraph. */
  duplicates: string[];
}

export function parseDomainDoc(markdown: string): DomainDoc {
  const rules: Rule[] = [];
  const unnamed: DomainDoc['unnamed'] = [];
  let exempt = false;
  let atSectionStart = false;
  const lines = markdown.split('\n');
  lines.forEach((text, index) => {
    const line = index + 1;
    if (SECTION.test(text)) {
      exempt = false;
      atSectionStart = true;
      return;
    }
    if (atSectionStart && text.trim() !== '') {
      atSectionStart = false;
      if (EXEMPT_MARK.test(text)) {
        exempt = true;
        return;
      }
    }
    const numbered = NUMBERED.exec(text);
    if (!numbered || exempt) return;
    const head = RULE_HEAD.exec(numbered[2]);
    if (!head) {
      unnamed.push({ number: numbered[1], line });
      return;
    }
    rules.push({ id: head[1], number: numbered[1], line, touchesDatabase: !head[2] });
  });
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.id)) duplicates.add(rule.id);
    seen.add(rule.id);
  }
  return { rules, unnamed, duplicates: [...duplicates] };
}

export interface RuleMention {
  id: string;
  file: string;
  line: number;
  title: string;
  /** The naming test runs once per dialect (inside `for (… of TEST_DIALECTS)`). */
  bothDialects: boolean;
}

const TEST_FUNCTIONS = new Set(['it', 'test', 'describe', 'suite']);
/** Modifiers that keep a test from running: it names no rule it does not prove. */
const NOT_RUN = new Set(['skip', 'todo']);

function staticText(node: ts.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('…');
  return undefined;
}

/** `it`, `it.only`, `describe.skipIf(x)`, `test.each(rows)`: the root name and the modifiers on it. */
function testCallee(node: ts.Expression): { root: string; modifiers: string[] } | undefined {
  const modifiers: string[] = [];
  let current = node;
  for (;;) {
    if (ts.isIdentifier(current)) {
      return TEST_FUNCTIONS.has(current.text) ? { root: current.text, modifiers } : undefined;
    }
    if (ts.isPropertyAccessExpression(current)) {
      modifiers.push(current.name.text);
      current = current.expression;
    } else if (ts.isCallExpression(current)) {
      current = current.expression;
    } else {
      return undefined;
    }
  }
}

function loopsOverDialects(node: ts.Node): boolean {
  return ts.isForOfStatement(node) && /\bTEST_DIALECTS$/.test(node.expression.getText());
}

const NAMES_DIALECT = /\bdialect\b/;

/** `if (dialect === 'postgres')`, `dialect === 'sqlite' ? … : …`: what is inside runs on one dialect. */
function branchesOnDialect(node: ts.Node): boolean {
  return (
    (ts.isIfStatement(node) && NAMES_DIALECT.test(node.expression.getText())) ||
    (ts.isConditionalExpression(node) && NAMES_DIALECT.test(node.condition.getText()))
  );
}

/** `it.skipIf(dialect === 'sqlite')(…)`, `it.runIf(dialect === 'postgres')(…)`. */
function calleeNamesDialect(node: ts.Expression): boolean {
  for (let current = node; ; ) {
    if (ts.isCallExpression(current)) {
      if (current.arguments.some((argument) => NAMES_DIALECT.test(argument.getText()))) return true;
      current = current.expression;
    } else if (ts.isPropertyAccessExpression(current)) {
      current = current.expression;
    } else {
      return false;
    }
  }
}

/** The `[id]` tokens in the titles of a TypeScript test file's `it`/`test`/`describe` calls. */
export function scanTypeScriptTests(file: string, source: string): RuleMention[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const mentions: RuleMention[] = [];
  const visit = (node: ts.Node, inDialectLoop: boolean): void => {
    let bothDialects = (inDialectLoop || loopsOverDialects(node)) && !branchesOnDialect(node);
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = testCallee(node.expression);
      const title = callee && !callee.modifiers.some((m) => NOT_RUN.has(m)) ? staticText(node.arguments[0]) : undefined;
      if (title !== undefined) {
        bothDialects &&= !calleeNamesDialect(node.expression);
        const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
        for (const match of title.matchAll(ID_TOKEN)) mentions.push({ id: match[1], file, line, title, bothDialects });
      }
    }
    ts.forEachChild(node, (child) => visit(child, bothDialects));
  };
  visit(sourceFile, false);
  return mentions;
}

/** Python tests name a rule in the docstring of a `test_*` function (their names cannot hold `[id]`). */
export function scanPythonTests(file: string, source: string): RuleMention[] {
  const mentions: RuleMention[] = [];
  const test =
    /^[ \t]*(?:async[ \t]+)?def[ \t]+(test_\w+)\s*\([^)]*\)[^:\n]*:[ \t]*\n[ \t]*[rRbBuU]?("""|''')([\s\S]*?)\2/gm;
  for (const match of source.matchAll(test)) {
    const line = source.slice(0, match.index).split('\n').length;
    const title = `${match[1]}: ${match[3].trim().split('\n')[0]}`;
    for (const id of match[3].matchAll(ID_TOKEN)) mentions.push({ id: id[1], file, line, title, bothDialects: false });
  }
  return mentions;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.next', '.git', 'data', '.venv', '__pycache__']);

function walk(directory: string, found: string[]): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) walk(path, found);
    else found.push(path);
  }
  return found;
}

/** Every rule mention in the repository's tests: TypeScript under libs/, apps/, test/; Python under clients/python/tests. */
export function scanRepositoryTests(root: string): RuleMention[] {
  const mentions: RuleMention[] = [];
  for (const directory of ['libs', 'apps', 'test']) {
    for (const path of walk(join(root, directory), [])) {
      if (!/\.test\.tsx?$/.test(path)) continue;
      mentions.push(...scanTypeScriptTests(relative(root, path), readFileSync(path, 'utf8')));
    }
  }
  for (const path of walk(join(root, 'clients', 'python', 'tests'), [])) {
    if (!/(^|\/)test_[^/]*\.py$|_test\.py$/.test(path)) continue;
    mentions.push(...scanPythonTests(relative(root, path), readFileSync(path, 'utf8')));
  }
  return mentions;
}

export interface RuleCheck {
  unnamed: DomainDoc['unnamed'];
  duplicates: string[];
  /** Rules no test names. */
  untested: string[];
  /** Ids named by a test that docs/domain.md does not have, with where. */
  unknown: { id: string; where: string[] }[];
  /** Database rules no test proves on both dialects (only one dialect, or Python only). */
  oneDialect: { id: string; where: string[] }[];
}

export function checkRules(doc: DomainDoc, mentions: RuleMention[]): RuleCheck {
  const known = new Set(doc.rules.map((rule) => rule.id));
  const byId = new Map<string, RuleMention[]>();
  for (const mention of mentions) byId.set(mention.id, [...(byId.get(mention.id) ?? []), mention]);
  const where = (list: RuleMention[]) => [...new Set(list.map((m) => `${m.file}:${m.line}`))];
  return {
    unnamed: doc.unnamed,
    duplicates: doc.duplicates,
    untested: [...new Set(doc.rules.filter((rule) => !byId.has(rule.id)).map((rule) => rule.id))],
    unknown: [...byId].filter(([id]) => !known.has(id)).map(([id, list]) => ({ id, where: where(list) })),
    oneDialect: [...new Map(doc.rules.map((rule) => [rule.id, rule])).values()]
      .filter((rule) => rule.touchesDatabase && byId.has(rule.id))
      .filter((rule) => !byId.get(rule.id)!.some((m) => m.bothDialects))
      .map((rule) => ({ id: rule.id, where: where(byId.get(rule.id)!) })),
  };
}
