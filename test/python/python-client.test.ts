import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The Python package (clients/python): its own pytest suite against a real API it starts from the
 * build (on SQLite, and on PostgreSQL when STATEHOUSE_TEST_PG_URL is set), then its type check and
 * lint. Without python3 and pytest the suite is reported skipped, never passed.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'clients', 'python');

/** A python3 that can import `module` (and so run `-m <module>`): the one on PATH first, then Debian's. */
function pythonWith(module: string): string | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    // An import, not `-m <module> --version`: not every module's command line knows `--version`
    // (compileall's does not), and a failed probe would skip the check instead of running it.
    const probe = spawnSync(python, ['-c', `import ${module}`], { encoding: 'utf8' });
    if (probe.status === 0) return python;
  }
  return null;
}

const pytest = pythonWith('pytest');
const python = pythonWith('compileall');

function run(python: string, args: string[], timeoutMs: number) {
  const result = spawnSync(python, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

function pythonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '__pycache__' ? [] : pythonFiles(path);
    return name.endsWith('.py') ? [path] : [];
  });
}

describe('the Python client (clients/python)', () => {
  it.skipIf(pytest === null)(
    'passes its pytest suite against a real API',
    () => {
      const { status, output, error } = run(
        pytest!,
        ['-m', 'pytest', 'clients/python/tests', '-q', '-p', 'no:cacheprovider'],
        15 * 60_000,
      );
      expect(error, output).toBeUndefined();
      expect(status, output).toBe(0);
      expect(output).toMatch(/\d+ passed/);
    },
    16 * 60_000,
  );

  it('ships py.typed', () => {
    expect(existsSync(join(PACKAGE, 'statehouse', 'py.typed'))).toBe(true);
    expect(readFileSync(join(PACKAGE, 'pyproject.toml'), 'utf8')).toMatch(/statehouse = \["py\.typed"\]/);
  });

  it.skipIf(python === null)('is typed: every function of the package is annotated', () => {
    // The annotations a typed package promises: every function's parameters and return.
    const check = run(
      python!,
      [
        '-c',
        [
          'import ast, pathlib, sys',
          'bad = []',
          "for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):",
          '    for node in ast.walk(ast.parse(path.read_text())):',
          '        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):',
          "            args = [a for a in node.args.args + node.args.kwonlyargs if a.arg not in ('self', 'cls')]",
          '            if node.returns is None or any(a.annotation is None for a in args):',
          "                bad.append(f'{path}:{node.lineno} {node.name}')",
          "print('\\n'.join(bad)); sys.exit(1 if bad else 0)",
        ].join('\n'),
        join(PACKAGE, 'statehouse'),
      ],
      60_000,
    );
    expect(check.status, check.output).toBe(0);
  });

  it.skipIf(python === null)(
    'compiles, type-checks (mypy --strict where mypy is installed) and lints (pyflakes where installed)',
    () => {
      // Every file compiles (without writing bytecode next to the sources).
      const compiled = run(
        python!,
        [
          '-c',
          "import sys\nfor path in sys.argv[1:]:\n    compile(open(path, encoding='utf-8').read(), path, 'exec')",
          ...pythonFiles(PACKAGE),
        ],
        120_000,
      );
      expect(compiled.status, compiled.output).toBe(0);
      const mypy = pythonWith('mypy');
      if (mypy !== null) {
        const typed = run(
          mypy,
          ['-m', 'mypy', '--strict', '--python-version', '3.10', join(PACKAGE, 'statehouse')],
          300_000,
        );
        expect(typed.status, typed.output).toBe(0);
      }
      const pyflakes = pythonWith('pyflakes');
      if (pyflakes !== null) {
        const files = pythonFiles(PACKAGE);
        const linted = run(pyflakes, ['-m', 'pyflakes', ...files], 120_000);
        expect(linted.status, linted.output).toBe(0);
      }
    },
    600_000,
  );
});
