'use client';

import { useRef, useState } from 'react';
import { buttonClass, LiveRegion } from '@/app/ui/common';
import './export.css';

interface ExportButtonProps {
  /** The dashboard's export route (a plain download without JavaScript). */
  href: string;
  label: string;
  /** What the progress counts ("rows", "lines") and how many are expected (null: unknown). */
  unit: string;
  expected: number | null;
  /** Lines of the file that are not items (a Markdown table's header). */
  headerLines?: number;
}

type Progress =
  | { state: 'idle' }
  | { state: 'running'; items: number; bytes: number }
  | { state: 'done'; items: number }
  | { state: 'failed'; detail: string };

/**
 * A download that shows how far it got: the export streams, so the file is read here as it
 * arrives — items counted by line — and saved when complete. Without JavaScript the link is an
 * ordinary download. A second click while running cancels.
 */
export function ExportButton({ href, label, unit, expected, headerLines = 0 }: ExportButtonProps) {
  const [progress, setProgress] = useState<Progress>({ state: 'idle' });
  const abort = useRef<AbortController | null>(null);

  async function run(event: React.MouseEvent<HTMLAnchorElement>) {
    event.preventDefault();
    if (abort.current) {
      abort.current.abort();
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setProgress({ state: 'running', items: 0, bytes: 0 });
    try {
      const response = await fetch(href, { signal: controller.signal });
      if (!response.ok || !response.body) {
        const problem = (await response.json().catch(() => null)) as { detail?: string } | null;
        throw new Error(problem?.detail ?? `HTTP ${response.status}`);
      }
      const reader = response.body.getReader();
      const chunks: Uint8Array[] = [];
      let lines = 0;
      let bytes = 0;
      let lastPaint = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.length;
        for (const byte of value) if (byte === 10) lines++;
        if (performance.now() - lastPaint > 100) {
          lastPaint = performance.now();
          setProgress({ state: 'running', items: Math.max(0, lines - headerLines), bytes });
        }
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
      const url = URL.createObjectURL(
        new Blob(chunks as BlobPart[], { type: response.headers.get('content-type') ?? '' }),
      );
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setProgress({ state: 'done', items: Math.max(0, lines - headerLines) });
    } catch (error) {
      setProgress({
        state: 'failed',
        detail: controller.signal.aborted ? 'Cancelled.' : error instanceof Error ? error.message : String(error),
      });
    } finally {
      abort.current = null;
    }
  }

  const running = progress.state === 'running';
  return (
    <div className="export-button">
      <a className={buttonClass({ variant: 'secondary', size: 'sm' })} href={href} onClick={run} download>
        {running ? `Cancel ${label}` : label}
      </a>
      {running ? (
        <progress
          className="export-button__progress"
          aria-label={`${label}: ${progress.items} ${unit}`}
          max={expected ?? undefined}
          value={expected ? Math.min(progress.items, expected) : undefined}
        />
      ) : null}
      <LiveRegion>
        {progress.state === 'running' ? (
          <span className="export-button__status" data-testid="export-progress">
            {progress.items.toLocaleString('en-US')}
            {expected ? ` of ${expected.toLocaleString('en-US')}` : ''} {unit}…
          </span>
        ) : progress.state === 'done' ? (
          <span className="export-button__status" data-testid="export-progress">
            {label}: {progress.items.toLocaleString('en-US')} {unit} saved.
          </span>
        ) : progress.state === 'failed' ? (
          <span className="export-button__status" data-testid="export-progress">
            {label} failed: {progress.detail}
          </span>
        ) : null}
      </LiveRegion>
    </div>
  );
}
