import type { ReactNode } from 'react';
import './transcript.css';

interface FoldProps {
  /** What the fold holds, in bold ("Called search", "Reasoning"). */
  title: ReactNode;
  /** One line of what is inside, shown while folded. */
  preview?: ReactNode;
  /** The call id the content belongs to. */
  callId?: string | null;
  children: ReactNode;
}

/** Long, rarely-read content (tool traffic, reasoning) folded behind a one-line summary. */
export function Fold({ title, preview, callId, children }: FoldProps) {
  return (
    <details className="fold">
      <summary>
        <span className="fold__summary-main">{title}</span>
        {preview ? <span className="fold__summary-preview">{preview}</span> : null}
      </summary>
      <div className="fold__body">
        {callId ? (
          <p className="fold__meta">
            Call id <code>{callId}</code>
          </p>
        ) : null}
        {children}
      </div>
    </details>
  );
}
