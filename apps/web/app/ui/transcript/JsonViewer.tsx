'use client';

import { type ReactNode, useId, useMemo, useState } from 'react';
import { Button } from '@/app/ui/common/Button';
import { CopyButton } from '@/app/ui/common/CopyButton';
import { DownloadButton } from './DownloadButton';
import { LongContent } from './LongContent';
import './transcript.css';

/** Above this many characters a document is shown as pretty text (a tree of it would be too many nodes). */
const TREE_MAX_CHARS = 200_000;
/** Levels open when the viewer first shows a document. */
const OPEN_DEPTH = 2;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Mode = 'default' | 'expanded' | 'collapsed';

interface JsonViewerProps {
  /** The text as stored: JSON is shown as a tree, anything else as it is. */
  text: string;
  /** What it is ("Arguments of search", "Result of search"): names the box, the search and the download. */
  label: string;
  /** The download's file name, without extension. */
  fileName: string;
}

function parseStructured(text: string): Json | undefined {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

const isContainer = (value: Json): value is Json[] | { [key: string]: Json } =>
  typeof value === 'object' && value !== null;

/** Where `query` occurs in a node's key or (primitive) value, and so which containers hold a match. */
function countMatches(value: Json, key: string | null, query: string, openPaths: Set<string>, path: string): number {
  let count = key?.toLowerCase().includes(query) ? 1 : 0;
  if (isContainer(value)) {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    let inside = 0;
    for (const [childKey, child] of entries) {
      inside += countMatches(child, Array.isArray(value) ? null : childKey, query, openPaths, `${path}/${childKey}`);
    }
    if (inside > 0) openPaths.add(path);
    count += inside;
  } else if (JSON.stringify(value).toLowerCase().includes(query)) {
    count += 1;
  }
  return count;
}

function Highlighted({ text, query }: { text: string; query: string }) {
  if (!query) return <>{text}</>;
  const lower = text.toLowerCase();
  const pieces: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(query); at >= 0; at = lower.indexOf(query, from)) {
    if (at > from) pieces.push(text.slice(from, at));
    pieces.push(<mark key={at}>{text.slice(at, at + query.length)}</mark>);
    from = at + query.length;
  }
  if (from < text.length) pieces.push(text.slice(from));
  return <>{pieces}</>;
}

interface NodeProps {
  name: string | null;
  value: Json;
  depth: number;
  path: string;
  query: string;
  mode: Mode;
  openPaths: Set<string>;
}

function JsonNode({ name, value, depth, path, query, mode, openPaths }: NodeProps) {
  const key =
    name === null ? null : (
      <span className="json-viewer__key">
        <Highlighted text={name} query={query} />
        <span aria-hidden="true">: </span>
      </span>
    );
  if (!isContainer(value)) {
    const kind = value === null ? 'null' : typeof value;
    return (
      <li className="json-viewer__leaf">
        {key}
        <span className={`json-viewer__value json-viewer__value--${kind}`}>
          <Highlighted text={JSON.stringify(value)} query={query} />
        </span>
      </li>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const size = Array.isArray(value)
    ? `${entries.length} ${entries.length === 1 ? 'item' : 'items'}`
    : `${entries.length} ${entries.length === 1 ? 'key' : 'keys'}`;
  const initiallyOpen =
    mode === 'expanded' || (mode === 'default' && (query ? openPaths.has(path) : depth < OPEN_DEPTH));
  return (
    <li className="json-viewer__branch">
      <details open={initiallyOpen}>
        <summary>
          {key}
          <span className="json-viewer__bracket">{open}</span>
          <span className="json-viewer__size"> {size} </span>
          <span className="json-viewer__bracket">{close}</span>
        </summary>
        {entries.length > 0 ? (
          <ul className="json-viewer__children">
            {entries.map(([childKey, child]) => (
              <JsonNode
                key={childKey}
                name={Array.isArray(value) ? null : childKey}
                value={child}
                depth={depth + 1}
                path={`${path}/${childKey}`}
                query={query}
                mode={mode}
                openPaths={openPaths}
              />
            ))}
          </ul>
        ) : null}
      </details>
    </li>
  );
}

/**
 * Tool arguments and results as a reader wants them: JSON pretty-printed as a tree of collapsible
 * nodes (native disclosure widgets: Enter/Space toggle, Tab moves), a search that opens the nodes
 * holding a match and marks it, copy and download; the box scrolls on its own. Text that is not a
 * JSON object or array is shown as it is, boxed and downloadable when long.
 */
export function JsonViewer({ text, label, fileName }: JsonViewerProps) {
  const value = useMemo(() => (text.length <= TREE_MAX_CHARS ? parseStructured(text) : undefined), [text]);
  if (value === undefined) {
    return (
      <LongContent text={text} label={label} fileName={fileName} extension={parseStructured(text) ? 'json' : 'txt'}>
        <pre className="code-block message__text">{text}</pre>
      </LongContent>
    );
  }
  return <JsonTree value={value} label={label} fileName={fileName} />;
}

function JsonTree({ value, label, fileName }: { value: Json; label: string; fileName: string }) {
  const searchId = useId();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<Mode>('default');
  // Expand/collapse all remount the tree: each node's initial state is then the chosen one.
  const [generation, setGeneration] = useState(0);
  const pretty = useMemo(() => JSON.stringify(value, null, 2), [value]);
  const needle = query.trim().toLowerCase();
  const { matches, openPaths } = useMemo(() => {
    const paths = new Set<string>();
    return { matches: needle ? countMatches(value, null, needle, paths, '') : 0, openPaths: paths };
  }, [value, needle]);
  const setAll = (next: Mode) => {
    setMode(next);
    setGeneration((current) => current + 1);
  };
  return (
    <div className="json-viewer">
      <div className="json-viewer__toolbar">
        <label className="json-viewer__search" htmlFor={searchId}>
          <span className="visually-hidden">Search in {label.toLowerCase()}</span>
          <input
            id={searchId}
            type="search"
            className="input input--sm"
            placeholder="Search…"
            value={query}
            onChange={(event) => {
              setQuery(event.target.value);
              setMode('default');
              setGeneration((current) => current + 1);
            }}
          />
        </label>
        <span className="json-viewer__matches" aria-live="polite">
          {needle ? `${matches} ${matches === 1 ? 'match' : 'matches'}` : ''}
        </span>
        <Button size="sm" variant="ghost" onClick={() => setAll('expanded')}>
          Expand all
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setAll('collapsed')}>
          Collapse all
        </Button>
        <CopyButton value={pretty} label="Copy JSON" />
        <DownloadButton text={pretty} fileName={`${fileName}.json`} label={label} />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to be scrolled by keyboard */}
      <figure className="json-viewer__box scroll-box" tabIndex={0} aria-label={label}>
        <ul className="json-viewer__root" key={generation}>
          <JsonNode name={null} value={value} depth={0} path="" query={needle} mode={mode} openPaths={openPaths} />
        </ul>
      </figure>
    </div>
  );
}
